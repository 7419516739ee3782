<?php

declare(strict_types=1);

namespace CardSandbox\Tests;

use CardSandbox\Duration;
use PHPUnit\Framework\TestCase;

final class DurationTest extends TestCase
{
    public function testPassesAStringAndMillisecondsAsTheyAre(): void
    {
        self::assertSame('1h30m', Duration::toBody('1h30m'));
        self::assertSame(2500, Duration::toBody(2500));
    }

    public function testGivesAnIntervalInMilliseconds(): void
    {
        self::assertSame(((1 * 24 + 2) * 3600 + 3 * 60 + 4) * 1000, Duration::toBody(new \DateInterval('P1DT2H3M4S')));
        $interval = new \DateInterval('PT1S');
        $interval->f = 0.25;
        self::assertSame(1250, Duration::toBody($interval));
        $diff = (new \DateTimeImmutable('2026-01-01'))->diff(new \DateTimeImmutable('2026-03-01'));
        self::assertSame(59 * 86_400_000, Duration::toBody($diff));
    }

    public function testRefusesANegativeIntervalAndMonthsOfNoFixedLength(): void
    {
        $negative = new \DateInterval('PT5S');
        $negative->invert = 1;
        foreach ([$negative, new \DateInterval('P1M')] as $interval) {
            try {
                Duration::toBody($interval);
                self::fail('refused');
            } catch (\InvalidArgumentException $error) {
                self::assertNotSame('', $error->getMessage());
            }
        }
    }
}
