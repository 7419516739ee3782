<?php

declare(strict_types=1);

namespace CardSandbox\Tests\Support;

/** This repository, around the kit's folder: its build, and Node to ask it. */
final class Repository
{
    public static function root(): string
    {
        return dirname(__DIR__, 3);
    }

    /** A built file of the Node package: `dist/client.js`. */
    public static function dist(string $file): string
    {
        $path = self::root() . '/dist/' . $file;
        if (!is_file($path)) {
            throw new \RuntimeException("{$path} is missing: run npm run build in " . self::root());
        }
        return $path;
    }

    /**
     * Runs a Node ES module script with `node --input-type=module -e`; its stdout.
     *
     * @param list<string> $arguments given to the script as process.argv.slice(1)
     */
    public static function node(string $script, array $arguments = []): string
    {
        $process = proc_open(
            ['node', '--input-type=module', '-e', $script, '--', ...$arguments],
            [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
            $pipes,
        );
        if (!is_resource($process)) {
            throw new \RuntimeException('cannot run node');
        }
        $output = (string) stream_get_contents($pipes[1]);
        $errors = (string) stream_get_contents($pipes[2]);
        $code = proc_close($process);
        if ($code !== 0) {
            throw new \RuntimeException("node exited {$code}: {$errors}");
        }
        return $output;
    }
}
