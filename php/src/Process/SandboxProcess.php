<?php

declare(strict_types=1);

namespace CardSandbox\Process;

use CardSandbox\SandboxStartException;
use CardSandbox\SandboxUrl;

/**
 * A sandbox this process started: `card-sandbox --port 0 --clock manual --log json`, with
 * exit-with-parent on, found as SandboxCommand says; its address read from the `listening`
 * line it prints once it serves.
 *
 * ```php
 * $sandbox = SandboxProcess::start(['seed' => 1]);
 * $client = new SandboxClient($sandbox->url, 'my-token');
 * $sandbox->stop();
 * ```
 */
final class SandboxProcess
{
    /** What the kit asks for unless the options or the environment say otherwise. */
    private const DEFAULTS = ['port' => 0, 'clock' => 'manual'];

    private function __construct(
        private readonly ChildProcess $child,
        /** The sandbox's origin: `http://127.0.0.1:<port>`; its API is under `/v1`. */
        public readonly string $url,
    ) {
    }

    /**
     * Starts a sandbox and waits until it listens.
     *
     * @param array<string, string|int|float|bool|list<string>> $options flags of `card-sandbox serve` by name:
     *                                                                   `['seed' => 1, 'scenario' => ['a.yaml'], 'sdk-compat' => true]`;
     *                                                                   a flag whose CARD_SANDBOX_* variable is set is left to the variable
     * @param array<string, string>|null $env     the environment it gets (default: this process's)
     * @param string|null                $cwd     where it runs and where node_modules is looked for (default: the working directory)
     * @param float                      $timeout seconds to wait for it to listen (a first `npx card-sandbox` in a clone builds for about a minute)
     *
     * @throws SandboxStartException naming the command and what it printed
     */
    public static function start(array $options = [], ?array $env = null, ?string $cwd = null, float $timeout = 120.0): self
    {
        $env ??= getenv();
        $cwd ??= (string) getcwd();
        $arguments = self::arguments($options, $env);
        // when PHP ends, however it ends, its end of the stdin pipe closes and the sandbox stops
        $childEnv = ['CARD_SANDBOX_EXIT_WITH_PARENT' => 'on'] + $env;
        $candidates = SandboxCommand::candidates($env, $cwd);
        foreach ($candidates as $index => $command) {
            $child = ChildProcess::start([...$command, ...$arguments], $childEnv, $cwd);
            try {
                return new self($child, self::waitUntilListening($child, $timeout));
            } catch (SandboxStartException $error) {
                $child->stop();
                // npx that cannot find the package: a card-sandbox on the PATH may still do
                if ($index === count($candidates) - 1) {
                    throw $error;
                }
            }
        }
        throw new \LogicException('unreachable: the last candidate returns or throws');
    }

    /** The process id of what was started (with npx, npx's). */
    public function pid(): int
    {
        return $this->child->pid();
    }

    public function isRunning(): bool
    {
        return $this->child->isRunning();
    }

    /** What the sandbox has printed so far: its JSON log lines. */
    public function output(): string
    {
        return $this->child->output();
    }

    /** Stops it (stdin closed, then SIGTERM: it finishes what is in flight) and waits for it. */
    public function stop(): void
    {
        $this->child->stop();
    }

    /** The variable that sets a flag, as the CLI reads it: `sdk-compat` → `CARD_SANDBOX_SDK_COMPAT`. */
    public static function variable(string $flag): string
    {
        return 'CARD_SANDBOX_' . strtoupper(str_replace('-', '_', $flag));
    }

    /**
     * The flags: the kit's defaults under the options, a flag whose variable is set left out (the
     * sandbox reads it), and `--log json` always (the address is read from the log).
     *
     * @param array<string, string|int|float|bool|list<string>> $options
     * @param array<string, string>                             $env
     *
     * @return list<string>
     */
    private static function arguments(array $options, array $env): array
    {
        $arguments = [];
        foreach (array_merge(self::DEFAULTS, $options) as $flag => $value) {
            if (($env[self::variable($flag)] ?? '') !== '') {
                continue;
            }
            foreach (is_array($value) ? $value : [$value] as $one) {
                $arguments[] = '--' . $flag;
                $arguments[] = is_bool($one) ? ($one ? 'on' : 'off') : (string) $one;
            }
        }
        return [...$arguments, '--log', 'json'];
    }

    /** Reads its output until the `listening` line; its origin. */
    private static function waitUntilListening(ChildProcess $child, float $timeout): string
    {
        $deadline = microtime(true) + $timeout;
        while (true) {
            $url = self::listeningUrl($child->output());
            if ($url !== null) {
                return $url;
            }
            $code = $child->exitCode();
            if ($code !== null) {
                throw new SandboxStartException(sprintf(
                    "card-sandbox: the sandbox exited (code %d) before it listened: %s\n%s",
                    $code,
                    ChildProcess::quote($child->command()),
                    $child->outputTail(),
                ));
            }
            if (microtime(true) >= $deadline) {
                throw new SandboxStartException(sprintf(
                    "card-sandbox: the sandbox did not listen within %d s: %s\n%s",
                    $timeout,
                    ChildProcess::quote($child->command()),
                    $child->outputTail(),
                ));
            }
            usleep(20_000);
        }
    }

    private static function listeningUrl(string $output): ?string
    {
        foreach (preg_split('/\R/', $output) ?: [] as $line) {
            if (!str_contains($line, '"listening"')) {
                continue;
            }
            $fields = json_decode($line, true);
            if (is_array($fields) && ($fields['event'] ?? null) === 'listening' && is_string($fields['api'] ?? null)) {
                return SandboxUrl::origin($fields['api']);
            }
        }
        return null;
    }
}
