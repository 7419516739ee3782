<?php

declare(strict_types=1);

namespace CardSandbox\Tests\Support;

/** For what happens just after a call (a webhook sent after the answer): polling, with a bound. */
final class Eventually
{
    /**
     * Calls `$probe` until `$holds` accepts what it returns, for at most `$seconds`; what it
     * returned last, whether accepted or not (the test's assertion then says what was wrong).
     *
     * @template T
     *
     * @param callable(): T    $probe
     * @param callable(T): bool $holds
     *
     * @return T
     */
    public static function value(callable $probe, callable $holds, float $seconds = 5.0): mixed
    {
        $deadline = microtime(true) + $seconds;
        while (true) {
            $value = $probe();
            if ($holds($value) || microtime(true) >= $deadline) {
                return $value;
            }
            usleep(20_000);
        }
    }
}
