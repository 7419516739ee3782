<?php

declare(strict_types=1);

namespace CardSandbox\Tests\Fixtures\Run;

use CardSandbox\PHPUnit\UsesSandbox;
use PHPUnit\Framework\TestCase;

require_once __DIR__ . '/Probe.php';

final class SecondTest extends TestCase
{
    use UsesSandbox;

    public function testRecordsThenEndsAsAsked(): void
    {
        $this->webhookReceiver();
        Probe::record($this->sandbox, __METHOD__);
        Probe::end();
        self::assertTrue(true);
    }
}
