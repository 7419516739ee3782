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

    /** Waits, polling for at most `$seconds`, until no process of `$pids` is alive; those still alive. */
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
        return $alive;
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
}
