<?php

declare(strict_types=1);

namespace CardSandbox\Tests\Fixtures\Run;

use CardSandbox\PHPUnit\UsesSandbox;
use PHPUnit\Framework\TestCase;

require_once __DIR__ . '/Probe.php';

final class FirstTest extends TestCase
{
    use UsesSandbox;

    public function testRecords(): void
    {
        $this->webhookReceiver();
        Probe::record($this->sandbox, __METHOD__);
        self::assertTrue(true);
    }
}
