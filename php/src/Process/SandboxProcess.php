<?php

declare(strict_types=1);

namespace CardSandbox\Process;

use CardSandbox\SandboxClient;
use CardSandbox\SandboxStartException;
use CardSandbox\SandboxUrl;

/**
 * A sandbox this process started, as every card-sandbox kit starts one: the command found as
 * SandboxCommand says, run as `card-sandbox --port 0 --clock manual --log json
 * --exit-with-parent on`, its address read from the JSON `listening` line, then its health asked
 * until it answers.
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

    /** Options passed in the sandbox's environment rather than its command line, out of `ps`. */
    private const SECRET_OPTIONS = ['webhook-secret', 'tokens'];

    /**
     * @param array<string, mixed> $banner
     */
    private function __construct(
        private readonly ChildProcess $child,
        /** The sandbox's origin: `http://127.0.0.1:<port>`; its API is under `/v1`. */
        public readonly string $url,
        /** Where its command was found: `CARD_SANDBOX_COMMAND`, `node_modules/.bin`, `npx`, `PATH`. */
        public readonly string $source,
        /** The `listening` line: version, api, clock, quirks, seed, scenarios, … */
        public readonly array $banner,
    ) {
    }

    /**
     * Starts a sandbox and waits until it answers.
     *
     * @param array<string, string|int|float|bool|list<string>> $options flags of `card-sandbox serve` by name:
     *                                                                   `['seed' => 1, 'scenario' => ['a.yaml'], 'sdk-compat' => true]`;
     *                                                                   a flag whose CARD_SANDBOX_* variable is set is left to the variable
     * @param array<string, string>|null $env     the environment it gets (default: this process's)
     * @param string|null                $cwd     where it runs and where node_modules is looked for (default: the working directory)
     * @param float                      $timeout seconds to wait for it (a first `npx card-sandbox` in a clone builds for about a minute)
     *
     * @throws SandboxStartException naming the command and what it printed
     */
    public static function start(array $options = [], ?array $env = null, ?string $cwd = null, float $timeout = 120.0): self
    {
        $env ??= getenv();
        $cwd ??= (string) getcwd();
        $childEnv = self::environment($options, $env);
        $arguments = self::arguments($options, $env);
        $candidates = SandboxCommand::candidates($env, $cwd);
        $failures = [];
        foreach ($candidates as $candidate) {
            $child = ChildProcess::start([...$candidate['command'], ...$arguments], $childEnv, $cwd);
            try {
                $banner = self::waitUntilListening($child, $candidate['source'], $timeout);
                return new self($child, SandboxUrl::origin((string) $banner['api']), $candidate['source'], $banner);
            } catch (SandboxStartException $error) {
                $child->stop();
                // npx that cannot find the package: a card-sandbox on the PATH may still do
                if ($candidate['source'] !== 'npx') {
                    throw $error;
                }
                $failures[] = $error->getMessage();
            }
        }
        throw new SandboxStartException(implode("\n", [...$failures, SandboxCommand::INSTALL_HINT]));
    }

    /** The process id of what was started (with npx, npx's). */
    public function pid(): int
    {
        return $this->child->pid();
    }

    /** @return list<string> the command and its arguments */
    public function command(): array
    {
        return $this->child->command();
    }

    /** The sandbox's version, from its `listening` line. */
    public function version(): string
    {
        return is_string($this->banner['version'] ?? null) ? $this->banner['version'] : '?';
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

    /** Stops it (SIGTERM, and its stdin closed: it finishes what is in flight) and waits for it. */
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
     * sandbox reads it), and two always: `--log json` (the address is read from the log) and
     * `--exit-with-parent on` (when PHP ends, however it ends, its end of the stdin pipe closes
     * and the sandbox stops as on SIGTERM).
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
            if (($env[self::variable($flag)] ?? '') !== '' || in_array($flag, self::SECRET_OPTIONS, true)) {
                continue;
            }
            foreach (is_array($value) ? $value : [$value] as $one) {
                $arguments[] = '--' . $flag;
                $arguments[] = self::text($one);
            }
        }
        return [...$arguments, '--log', 'json', '--exit-with-parent', 'on'];
    }

    /**
     * The sandbox's environment: this one, and the secret options.
     *
     * @param array<string, string|int|float|bool|list<string>> $options
     * @param array<string, string>                             $env
     *
     * @return array<string, string>
     */
    private static function environment(array $options, array $env): array
    {
        foreach (self::SECRET_OPTIONS as $flag) {
            if (isset($options[$flag]) && ($env[self::variable($flag)] ?? '') === '') {
                $env[self::variable($flag)] = self::text($options[$flag]);
            }
        }
        return $env;
    }

    /** @param string|int|float|bool|list<string> $value */
    private static function text(string|int|float|bool|array $value): string
    {
        if (is_bool($value)) {
            return $value ? 'on' : 'off';
        }
        return is_array($value) ? implode(',', $value) : (string) $value;
    }

    /**
     * Reads its output until the `listening` line, then asks its health until it answers.
     *
     * @return array<string, mixed> the `listening` line
     */
    private static function waitUntilListening(ChildProcess $child, string $source, float $timeout): array
    {
        $deadline = microtime(true) + $timeout;
        $described = ChildProcess::quote($child->command()) . " ({$source})";
        while (($banner = self::banner($child->output())) === null) {
            if (($code = $child->exitCode()) !== null) {
                throw new SandboxStartException("card-sandbox: {$described} exited ({$code}) before it was listening:\n" . self::indent($child->outputTail()));
            }
            if (microtime(true) >= $deadline) {
                throw new SandboxStartException("card-sandbox: {$described} was not listening after {$timeout} s:\n" . self::indent($child->outputTail()));
            }
            usleep(20_000);
        }
        $client = new SandboxClient((string) $banner['api'], 'card-sandbox-kit', 2.0);
        while (true) {
            try {
                $client->health();
                return $banner;
            } catch (\RuntimeException $error) {
                if (!$child->isRunning() || microtime(true) >= $deadline) {
                    throw new SandboxStartException("card-sandbox: {$described} printed its address but its health does not answer ({$error->getMessage()}):\n" . self::indent($child->outputTail()));
                }
                usleep(50_000);
            }
        }
    }

    /** @return array<string, mixed>|null */
    private static function banner(string $output): ?array
    {
        foreach (preg_split('/\R/', $output) ?: [] as $line) {
            if (!str_contains($line, '"listening"')) {
                continue;
            }
            $fields = json_decode($line, true);
            if (is_array($fields) && ($fields['event'] ?? null) === 'listening' && is_string($fields['api'] ?? null)) {
                return $fields;
            }
        }
        return null;
    }

    private static function indent(string $text): string
    {
        return $text === '' ? '  (no output)' : '  | ' . str_replace("\n", "\n  | ", $text);
    }
}
