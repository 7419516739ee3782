<?php

declare(strict_types=1);

namespace CardSandbox\Tests\Support;

/**
 * A PHPUnit run inside a test: the suite of tests/Fixtures/Run, run by the same PHPUnit and PHP
 * as this one, through the kit's bootstrap, with an environment of the test's choosing. Its
 * tests append what they saw to a probe file (Fixtures/Run/Probe.php).
 */
final class InnerRun
{
    private const CONFIG = __DIR__ . '/../Fixtures/Run/phpunit.xml';

    /** @var mixed the proc_open resource */
    private mixed $process;

    private ?int $exitCode = null;

    private function __construct(public readonly string $probeFile, private readonly string $outputFile)
    {
    }

    /**
     * @param array<string, string|false> $env variables to set (false: unset) over this process's,
     *                                         where CARD_SANDBOX_URL and the run's marker are unset
     */
    public static function start(array $env = [], ?string $cwd = null): self
    {
        $run = new self((string) tempnam(sys_get_temp_dir(), 'probe-'), (string) tempnam(sys_get_temp_dir(), 'inner-run-'));
        $environment = getenv();
        unset($environment['CARD_SANDBOX_URL'], $environment['CARD_SANDBOX_KIT_RUN']);
        $environment['PROBE_FILE'] = $run->probeFile;
        foreach ($env as $name => $value) {
            if ($value === false) {
                unset($environment[$name]);
            } else {
                $environment[$name] = $value;
            }
        }
        $phpunit = (string) realpath($_SERVER['argv'][0]);
        $run->process = proc_open(
            [PHP_BINARY, $phpunit, '-c', (string) realpath(self::CONFIG)],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', $run->outputFile, 'a'], 2 => ['file', $run->outputFile, 'a']],
            $pipes,
            $cwd ?? dirname(__DIR__, 2),
            $environment,
        );
        return $run;
    }

    /** Waits for it to end, at most `$seconds`; its exit code. */
    public function finish(float $seconds = 90.0): int
    {
        $deadline = microtime(true) + $seconds;
        while ($this->exitCode === null) {
            $status = proc_get_status($this->process);
            if (!$status['running']) {
                $this->exitCode = $status['signaled'] ? 128 + $status['termsig'] : $status['exitcode'];
                proc_close($this->process);
                break;
            }
            if (microtime(true) >= $deadline) {
                proc_terminate($this->process, 9);
                throw new \RuntimeException("the inner run did not end within {$seconds} s:\n" . $this->output());
            }
            usleep(50_000);
        }
        return $this->exitCode;
    }

    /** Waits until one of its tests has recorded `.ready` (PROBE_MODE=hang), at most `$seconds`. */
    public function waitUntilReady(float $seconds = 60.0): void
    {
        $deadline = microtime(true) + $seconds;
        while (!is_file($this->probeFile . '.ready')) {
            if (microtime(true) >= $deadline || !proc_get_status($this->process)['running']) {
                throw new \RuntimeException("the inner run did not get ready:\n" . $this->output());
            }
            usleep(50_000);
        }
    }

    /** SIGKILL: PHP ends at once, running nothing (no shutdown function, no destructor). */
    public function kill(): void
    {
        proc_terminate($this->process, 9);
    }

    public function pid(): int
    {
        return (int) proc_get_status($this->process)['pid'];
    }

    public function output(): string
    {
        return (string) file_get_contents($this->outputFile);
    }

    /** @return list<array<string, mixed>> what its tests recorded, in order */
    public function records(): array
    {
        $lines = array_filter(explode("\n", (string) file_get_contents($this->probeFile)));
        return array_values(array_map(static fn (string $line): array => json_decode($line, true), $lines));
    }

    /**
     * Every process its tests saw under it (the sandbox, the receivers' supervisors and servers).
     *
     * @return list<int>
     */
    public function processesSeen(): array
    {
        $seen = [];
        foreach ($this->records() as $record) {
            $seen = [...$seen, ...$record['descendants']];
        }
        return array_values(array_unique($seen));
    }

    public function __destruct()
    {
        @unlink($this->probeFile);
        @unlink($this->probeFile . '.ready');
        @unlink($this->outputFile);
    }
}
