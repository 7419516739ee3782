<?php

declare(strict_types=1);

namespace CardSandbox;

/**
 * A duration as the control plane takes it: `"500ms"`, `"30s"`, `"15m"`, `"2h"`, `"1d"`,
 * `"1h30m"` (passed as they are), milliseconds, or a DateInterval of days and smaller units.
 */
final class Duration
{
    /**
     * What a body carries for `$duration`: the string or the milliseconds.
     *
     * @throws \InvalidArgumentException for a negative interval or one in months or years,
     *                                   which have no fixed length
     */
    public static function toBody(string|int|\DateInterval $duration): string|int
    {
        if (!$duration instanceof \DateInterval) {
            return $duration;
        }
        if ($duration->invert === 1) {
            throw new \InvalidArgumentException('a duration cannot be negative: the sandbox clock only moves forward');
        }
        if ($duration->y !== 0 || $duration->m !== 0) {
            if ($duration->days === false) {
                throw new \InvalidArgumentException('months and years have no fixed length: give the duration in days or smaller units');
            }
            // an interval from DateTime::diff() knows its whole length in days
            $days = $duration->days;
        } else {
            $days = $duration->d;
        }
        $seconds = (($days * 24 + $duration->h) * 60 + $duration->i) * 60 + $duration->s;
        return $seconds * 1000 + intdiv((int) round($duration->f * 1_000_000), 1000);
    }
}
