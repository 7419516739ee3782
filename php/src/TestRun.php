<?php

declare(strict_types=1);

namespace CardSandbox;

use CardSandbox\Process\SandboxProcess;

/**
 * One sandbox for a whole test run, as every card-sandbox kit has it. `start()` (the kit's
 * `bootstrap.php` calls it) either
 *
 * - attaches, when CARD_SANDBOX_URL is set before the run: it starts nothing, says so on the
 *   first line of output, and refuses any server option also given (it could not apply), or
 * - starts one (SandboxProcess: a free port, manual clocks), sets CARD_SANDBOX_URL to its origin
 *   for the code under test and the processes it starts, and stops it when PHP ends: at the end of
 *   the run, after a fatal error, and (the sandbox's exit-with-parent) when PHP is killed.
 *
 * A process the run starts with PHPUnit's process isolation inherits the URL and a marker, and
 * uses the same sandbox without a word.
 */
final class TestRun
{
    /**
     * The flags that set up the sandbox itself (`card-sandbox --help`, "Flags of serve"): none of
     * them can apply to a sandbox that runs already. `pid-file` and `exit-with-parent` say how the
     * process runs and are left out. tests/ServerFlagsTest.php holds this list to the CLI's.
     */
    public const SERVER_FLAGS = [
        'port', 'host', 'allowed-host', 'public-url', 'cors', 'db', 'db-wait', 'seed', 'tokens',
        'speed', 'clock', 'clock-start', 'quirks', 'sdk-compat', 'rate-limit', 'log', 'journal',
        'scenario', 'fixtures', 'webhook-url', 'webhook-secret', 'webhook-extensions',
    ];

    /**
     * Set beside CARD_SANDBOX_URL for the processes the run starts: `started:<run>` or
     * `attached:<run>`.
     */
    private const MARKER = 'CARD_SANDBOX_KIT_RUN';

    private static ?string $url = null;
    private static bool $attached = false;
    private static string $id = '';
    private static ?SandboxProcess $process = null;

    /**
     * Starts the run's sandbox, or attaches to CARD_SANDBOX_URL; once per process. Answers its
     * origin (`http://127.0.0.1:<port>`).
     *
     * @param array<string, string|int|float|bool|list<string>> $options flags of `card-sandbox serve` by name
     *                                                                   (`['seed' => 1, 'sdk-compat' => true, 'scenario' => ['tests/x.yaml']]`);
     *                                                                   CARD_SANDBOX_* variables win over them
     * @param float                                             $timeout seconds to wait for it to answer
     *
     * @throws SandboxStartException
     */
    public static function start(array $options = [], float $timeout = 120.0): string
    {
        if (self::$url !== null) {
            return self::$url;
        }
        $given = (string) getenv('CARD_SANDBOX_URL');
        $marker = explode(':', (string) getenv(self::MARKER), 2);
        if ($given !== '' && count($marker) === 2) {
            // a process of this run (process isolation): its sandbox, already announced
            [$how, self::$id] = $marker;
            self::$attached = $how === 'attached';
            return self::$url = SandboxUrl::origin($given);
        }
        self::$id = bin2hex(random_bytes(3));
        if ($given !== '') {
            return self::attach(SandboxUrl::origin($given), $options);
        }
        $process = SandboxProcess::start($options, timeout: $timeout);
        self::$process = $process;
        register_shutdown_function(static function () use ($process): void {
            $process->stop();
        });
        self::export($process->url, 'started');
        $clock = is_string($process->banner['clock'] ?? null) ? $process->banner['clock'] : 'manual';
        self::say(sprintf(
            'started card-sandbox %s at %s (%s: %s), %s clocks; stopped at the end of the run',
            $process->version(),
            $process->url,
            $process->source,
            implode(' ', $process->command()),
            $clock,
        ));
        return self::$url = $process->url;
    }

    /**
     * The run's sandbox: its origin.
     *
     * @throws SandboxStartException when the run has none (PHPUnit's bootstrap is not the kit's)
     */
    public static function url(): string
    {
        if (self::$url !== null) {
            return self::$url;
        }
        $given = (string) getenv('CARD_SANDBOX_URL');
        if ($given === '') {
            throw new SandboxStartException(
                'card-sandbox: this run has no sandbox: point PHPUnit at the kit\'s bootstrap '
                . '(phpunit.xml: bootstrap="vendor/card-sandbox/card-sandbox/bootstrap.php"), '
                . 'call CardSandbox\TestRun::start() in your own, or set CARD_SANDBOX_URL'
            );
        }
        return SandboxUrl::origin($given);
    }

    /** Whether the run uses a sandbox it did not start (CARD_SANDBOX_URL was set before it). */
    public static function attached(): bool
    {
        return self::$attached;
    }

    /** The sandbox the run started, if this process started one. */
    public static function process(): ?SandboxProcess
    {
        return self::$process;
    }

    /**
     * A test's own token: `phpunit-<run>-<hash of the test's name>`. A random word of the run in
     * each, so runs that share a sandbox never share a tenant; the masked token the sandbox
     * prints (its last 4 characters) still tells tests apart.
     */
    public static function tokenFor(string $test): string
    {
        if (self::$id === '') {
            self::$id = bin2hex(random_bytes(3));
        }
        return sprintf('phpunit-%s-%s', self::$id, substr(hash('sha256', $test), 0, 10));
    }

    /**
     * @param array<string, string|int|float|bool|list<string>> $options
     */
    private static function attach(string $url, array $options): string
    {
        $refused = array_map(static fn (string $flag): string => "'{$flag}'", array_keys($options));
        foreach (self::SERVER_FLAGS as $flag) {
            if ((string) getenv(SandboxProcess::variable($flag)) !== '') {
                $refused[] = SandboxProcess::variable($flag);
            }
        }
        if ($refused !== []) {
            throw new SandboxStartException(sprintf(
                'card-sandbox: CARD_SANDBOX_URL is set (%s): the run uses that sandbox and starts none, '
                . 'so these server options cannot apply: %s. Start that sandbox with them, or unset CARD_SANDBOX_URL.',
                $url,
                implode(', ', $refused),
            ));
        }
        try {
            (new SandboxClient($url, 'card-sandbox-kit', 10.0))->health();
        } catch (\RuntimeException $error) {
            throw new SandboxStartException("card-sandbox: CARD_SANDBOX_URL is set ({$url}) but no sandbox answers there: {$error->getMessage()}");
        }
        self::$attached = true;
        self::export($url, 'attached');
        self::say("attached to the sandbox at {$url} (CARD_SANDBOX_URL); starting none, each test's tenant on a manual clock");
        return self::$url = $url;
    }

    /** CARD_SANDBOX_URL for the code under test, and the marker for the processes it starts. */
    private static function export(string $url, string $how): void
    {
        foreach (['CARD_SANDBOX_URL' => $url, self::MARKER => $how . ':' . self::$id] as $name => $value) {
            putenv("{$name}={$value}");
            $_ENV[$name] = $value;
            $_SERVER[$name] = $value;
        }
    }

    /** A line before PHPUnit's first (on stderr: it is no test's output). */
    private static function say(string $text): void
    {
        fwrite(STDERR, "card-sandbox: {$text}\n");
    }
}
