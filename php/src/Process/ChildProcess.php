<?php

declare(strict_types=1);

namespace CardSandbox\Process;

use CardSandbox\SandboxStartException;

/**
 * A child process as the kit runs one: started without a shell, its stdin a pipe this process
 * holds open (it closes when this process ends, however it ends, which the sandbox's
 * exit-with-parent and the PHP server's supervisor watch for), and its stdout and stderr written
 * to a temporary file, so no pipe fills while PHP is busy running tests.
 */
final class ChildProcess
{
    /** SIGTERM and SIGKILL, named here: ext-pcntl, which defines them, is not required. */
    private const SIGTERM = 15;
    private const SIGKILL = 9;

    private ?int $exitCode = null;

    /**
     * @param mixed $process the proc_open resource
     * @param mixed $stdin   the write end of the child's stdin
     * @param mixed $output  a read handle on the output file (which, but on Windows, is already
     *                       unlinked: nothing is left behind, however this process ends)
     */
    private function __construct(
        private mixed $process,
        private mixed $stdin,
        private mixed $output,
        private readonly int $pid,
        private readonly string $outputFile,
        /** @var list<string> */
        private readonly array $command,
    ) {
    }

    /**
     * @param list<string>          $command the program and its arguments (no shell: PATH is searched)
     * @param array<string, string> $env     the child's whole environment
     */
    public static function start(array $command, array $env, ?string $cwd = null): self
    {
        $outputFile = tempnam(sys_get_temp_dir(), 'card-sandbox-');
        if ($outputFile === false) {
            throw new SandboxStartException('cannot create a temporary file in ' . sys_get_temp_dir());
        }
        $descriptors = [0 => ['pipe', 'r'], 1 => ['file', $outputFile, 'a'], 2 => ['file', $outputFile, 'a']];
        $process = @proc_open($command, $descriptors, $pipes, $cwd, $env);
        if (!is_resource($process)) {
            @unlink($outputFile);
            $error = error_get_last()['message'] ?? 'proc_open failed';
            throw new SandboxStartException(sprintf('cannot run %s: %s', self::quote($command), $error));
        }
        $output = fopen($outputFile, 'r');
        if (PHP_OS_FAMILY !== 'Windows') {
            @unlink($outputFile);
        }
        $status = proc_get_status($process);
        return new self($process, $pipes[0], $output, (int) $status['pid'], $outputFile, $command);
    }

    /** The child's process id (with a launcher such as npx, the launcher's). */
    public function pid(): int
    {
        return $this->pid;
    }

    /** @return list<string> */
    public function command(): array
    {
        return $this->command;
    }

    public function isRunning(): bool
    {
        return $this->exitCode() === null;
    }

    /** Null while it runs; then its exit code (128 + the signal's number when a signal ended it). */
    public function exitCode(): ?int
    {
        if ($this->exitCode !== null || !is_resource($this->process)) {
            return $this->exitCode;
        }
        $status = proc_get_status($this->process);
        if ($status['running']) {
            return null;
        }
        // proc_get_status tells the exit code once only: kept
        $this->exitCode = $status['signaled'] ? 128 + $status['termsig'] : $status['exitcode'];
        return $this->exitCode;
    }

    /** What it has written to stdout and stderr so far. */
    public function output(): string
    {
        if (!is_resource($this->output)) {
            return '';
        }
        rewind($this->output);
        return (string) stream_get_contents($this->output);
    }

    /** The last lines of its output, for an error message. */
    public function outputTail(int $lines = 20): string
    {
        $all = preg_split('/\R/', trim($this->output())) ?: [];
        return implode("\n", array_slice($all, -$lines));
    }

    /**
     * Waits for it to end, polling, at most `$seconds`; whether it has.
     */
    public function waitForExit(float $seconds): bool
    {
        $deadline = microtime(true) + $seconds;
        while ($this->isRunning()) {
            if (microtime(true) >= $deadline) {
                return false;
            }
            usleep(20_000);
        }
        return true;
    }

    /**
     * Ends it and waits, its output let go; safe to call twice. A program that stops on
     * SIGTERM (the sandbox, which then logs whose stop it is) gets SIGTERM and its stdin closed;
     * one that stops when its stdin closes (the PHP server's supervisor) gets that first, and
     * SIGTERM only if it is still there `$grace` seconds later. SIGKILL after `$grace` more.
     */
    public function stop(float $grace = 10.0, bool $stdinFirst = false): void
    {
        if (!is_resource($this->process)) {
            return;
        }
        if (!$stdinFirst) {
            proc_terminate($this->process, self::SIGTERM);
        }
        if (is_resource($this->stdin)) {
            fclose($this->stdin);
        }
        if ($stdinFirst && !$this->waitForExit($grace)) {
            proc_terminate($this->process, self::SIGTERM);
        }
        if (!$this->waitForExit($grace)) {
            proc_terminate($this->process, self::SIGKILL);
            $this->waitForExit(5.0);
        }
        proc_close($this->process);
        $this->process = null;
        if (is_resource($this->output)) {
            fclose($this->output);
        }
        @unlink($this->outputFile);
    }

    /** @param list<string> $command */
    public static function quote(array $command): string
    {
        return implode(' ', array_map(
            static fn (string $word): string => preg_match('~^[\w./:=@%+,-]+$~', $word) === 1 ? $word : escapeshellarg($word),
            $command,
        ));
    }
}
