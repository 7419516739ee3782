<?php

declare(strict_types=1);

namespace CardSandbox\Process;

use CardSandbox\SandboxStartException;

/**
 * Where the `card-sandbox` command is, in the order every kit looks: `CARD_SANDBOX_COMMAND` (a
 * command line: `node /path/to/card-sandbox/dist/bin/card-sandbox.js`), the project's
 * `node_modules/.bin/card-sandbox` (in the working directory or above, as Node resolves it),
 * `npx --no -- card-sandbox` (which never downloads), and `card-sandbox` on the PATH.
 */
final class SandboxCommand
{
    /**
     * The commands to try, in order (more than one only when npx may fail to find the package
     * and a `card-sandbox` on the PATH would then do).
     *
     * @param array<string, string> $env
     *
     * @return non-empty-list<list<string>>
     */
    public static function candidates(array $env, string $cwd): array
    {
        $given = trim($env['CARD_SANDBOX_COMMAND'] ?? '');
        if ($given !== '') {
            return [self::split($given)];
        }
        $local = self::inNodeModules($cwd);
        if ($local !== null) {
            return [[$local]];
        }
        $path = $env['PATH'] ?? '';
        $onPath = self::onPath('card-sandbox', $path);
        $candidates = [];
        if (self::onPath('npx', $path) !== null) {
            $candidates[] = ['npx', '--no', '--', 'card-sandbox'];
        }
        if ($onPath !== null) {
            $candidates[] = [$onPath];
        }
        if ($candidates === []) {
            throw new SandboxStartException(
                "card-sandbox: no sandbox to start: CARD_SANDBOX_COMMAND is not set, there is no node_modules/.bin/card-sandbox in {$cwd} or above, "
                . 'and neither npx nor card-sandbox is on the PATH. Install card-sandbox in this project '
                . '(npm install --save-dev <the card-sandbox tarball>), or set CARD_SANDBOX_COMMAND '
                . '(e.g. "node /path/to/card-sandbox/dist/bin/card-sandbox.js"), or set CARD_SANDBOX_URL to use a sandbox that runs already.'
            );
        }
        return $candidates;
    }

    /**
     * A command line split into words as a POSIX shell would: whitespace separates, quotes group
     * (`'…'` as it is, `"…"` with `\"` and `\\`), a backslash escapes outside quotes.
     *
     * @return non-empty-list<string>
     */
    public static function split(string $line): array
    {
        $words = [];
        $word = null;
        $length = strlen($line);
        for ($i = 0; $i < $length; $i++) {
            $char = $line[$i];
            if ($char === "'") {
                $end = strpos($line, "'", $i + 1);
                if ($end === false) {
                    throw new SandboxStartException("CARD_SANDBOX_COMMAND has an unclosed ' quote: {$line}");
                }
                $word = ($word ?? '') . substr($line, $i + 1, $end - $i - 1);
                $i = $end;
            } elseif ($char === '"') {
                $word ??= '';
                for ($i++; $i < $length && $line[$i] !== '"'; $i++) {
                    if ($line[$i] === '\\' && $i + 1 < $length && in_array($line[$i + 1], ['"', '\\', '$', '`'], true)) {
                        $i++;
                    }
                    $word .= $line[$i];
                }
                if ($i >= $length) {
                    throw new SandboxStartException("CARD_SANDBOX_COMMAND has an unclosed \" quote: {$line}");
                }
            } elseif ($char === '\\' && $i + 1 < $length) {
                $word = ($word ?? '') . $line[++$i];
            } elseif (ctype_space($char)) {
                if ($word !== null) {
                    $words[] = $word;
                }
                $word = null;
            } else {
                $word = ($word ?? '') . $char;
            }
        }
        if ($word !== null) {
            $words[] = $word;
        }
        if ($words === []) {
            throw new SandboxStartException('CARD_SANDBOX_COMMAND is blank');
        }
        return $words;
    }

    /** `node_modules/.bin/card-sandbox` in `$dir` or the nearest folder above that has one. */
    private static function inNodeModules(string $dir): ?string
    {
        while (true) {
            $bin = $dir . DIRECTORY_SEPARATOR . 'node_modules' . DIRECTORY_SEPARATOR . '.bin' . DIRECTORY_SEPARATOR . 'card-sandbox';
            if (is_file($bin) && is_executable($bin)) {
                return $bin;
            }
            $parent = dirname($dir);
            if ($parent === $dir) {
                return null;
            }
            $dir = $parent;
        }
    }

    private static function onPath(string $program, string $path): ?string
    {
        foreach (explode(PATH_SEPARATOR, $path) as $dir) {
            if ($dir === '') {
                continue;
            }
            $file = $dir . DIRECTORY_SEPARATOR . $program;
            if (is_file($file) && is_executable($file)) {
                return $file;
            }
        }
        return null;
    }
}
