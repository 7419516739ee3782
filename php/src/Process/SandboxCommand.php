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
    /** What the error says when no sandbox can be had. */
    public const INSTALL_HINT = 'Two ways out: install card-sandbox in the project with npm (then node_modules/.bin/card-sandbox '
        . 'is found; see docs/php.md, "Install"), or point the kit at a sandbox already running: '
        . 'CARD_SANDBOX_URL=http://127.0.0.1:4010 (or set CARD_SANDBOX_COMMAND to the command that starts one, '
        . 'e.g. "node /path/to/card-sandbox/dist/bin/card-sandbox.js").';

    /**
     * The commands to try, in order, each with where it was found (more than one only when npx,
     * which may not find the package, comes before a `card-sandbox` on the PATH).
     *
     * @param array<string, string> $env
     *
     * @return non-empty-list<array{command: non-empty-list<string>, source: string}>
     *
     * @throws SandboxStartException naming each place looked in, when there is none
     */
    public static function candidates(array $env, string $cwd): array
    {
        $given = trim($env['CARD_SANDBOX_COMMAND'] ?? '');
        if ($given !== '') {
            $command = self::split($given);
            $program = $command[0];
            $found = str_contains($program, DIRECTORY_SEPARATOR) ? is_file($program) : self::onPath($program, $env['PATH'] ?? '') !== null;
            if (!$found) {
                throw new SandboxStartException("card-sandbox: CARD_SANDBOX_COMMAND runs {$program}, which is not a file nor on the PATH (CARD_SANDBOX_COMMAND={$given}).");
            }
            return [['command' => $command, 'source' => 'CARD_SANDBOX_COMMAND']];
        }
        $local = self::inNodeModules($cwd);
        if ($local !== null) {
            return [['command' => [$local], 'source' => 'node_modules/.bin']];
        }
        $tried = ['CARD_SANDBOX_COMMAND (not set)', "node_modules/.bin/card-sandbox in {$cwd} and the folders above it"];
        $path = $env['PATH'] ?? '';
        $candidates = [];
        $npx = self::onPath('npx', $path);
        if ($npx !== null) {
            $candidates[] = ['command' => [$npx, '--no', '--', 'card-sandbox'], 'source' => 'npx'];
        } else {
            $tried[] = 'npx (not on PATH)';
        }
        $onPath = self::onPath('card-sandbox', $path);
        if ($onPath !== null) {
            $candidates[] = ['command' => [$onPath], 'source' => 'PATH'];
        } else {
            $tried[] = 'card-sandbox on PATH';
        }
        if ($candidates === []) {
            throw new SandboxStartException(
                'card-sandbox: no sandbox could be started. Tried: ' . implode('; ', $tried) . ".\n" . self::INSTALL_HINT
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
