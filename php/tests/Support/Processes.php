<?php

declare(strict_types=1);

namespace CardSandbox\Tests\Support;

/** Other processes, as Linux's /proc shows them. */
final class Processes
{
    /** Whether `$pid` is a live process (a zombie, dead but not yet reaped, is not). */
    public static function isAlive(int $pid): bool
    {
        $stat = @file_get_contents("/proc/{$pid}/stat");
        if ($stat === false) {
            return false;
        }
        // the command name may hold spaces and parentheses: the fields start after the last ')'
        $state = substr($stat, strrpos($stat, ')') + 2, 1);
        return $state !== 'Z';
    }

    /**
     * Waits, polling for at most `$seconds`, until no process of `$pids` is alive; those still
     * alive, each as `<pid>: <its command line>`.
     *
     * @param list<int> $pids
     *
     * @return list<string>
     */
    public static function waitUntilGone(array $pids, float $seconds = 15.0): array
    {
        $deadline = microtime(true) + $seconds;
        do {
            $alive = array_values(array_filter($pids, [self::class, 'isAlive']));
            if ($alive === []) {
                return [];
            }
            usleep(50_000);
        } while (microtime(true) < $deadline);
        return array_map(
            static fn (int $pid): string => $pid . ': ' . trim(str_replace("\0", ' ', (string) @file_get_contents("/proc/{$pid}/cmdline"))),
            $alive,
        );
    }

    /**
     * The processes whose parent is `$pid`.
     *
     * @return list<int>
     */
    public static function childrenOf(int $pid): array
    {
        $children = [];
        foreach (glob('/proc/[0-9]*/stat') ?: [] as $file) {
            $stat = @file_get_contents($file);
            if ($stat === false) {
                continue;
            }
            $fields = explode(' ', substr($stat, strrpos($stat, ')') + 2));
            if ((int) $fields[1] === $pid) {
                $children[] = (int) basename(dirname($file));
            }
        }
        return $children;
    }

    /**
     * The processes under `$pid`: its children, theirs, and so on.
     *
     * @return list<int>
     */
    public static function descendantsOf(int $pid): array
    {
        $found = [];
        foreach (self::childrenOf($pid) as $child) {
            $found = [...$found, $child, ...self::descendantsOf($child)];
        }
        return $found;
    }

    /**
     * Kills those of `$pids` still alive (SIGKILL): what a failed test leaves behind.
     *
     * @param list<int> $pids
     */
    public static function killAll(array $pids): void
    {
        foreach (array_filter($pids, [self::class, 'isAlive']) as $pid) {
            posix_kill($pid, 9);
        }
    }
}
