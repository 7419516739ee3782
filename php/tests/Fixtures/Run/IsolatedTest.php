<?php

declare(strict_types=1);

namespace CardSandbox\Tests\Fixtures\Run;

use CardSandbox\PHPUnit\UsesSandbox;
use PHPUnit\Framework\TestCase;

require_once __DIR__ . '/Probe.php';

/** PHPUnit's process isolation: the test runs in a PHP of its own, which runs the bootstrap again. */
final class IsolatedTest extends TestCase
{
    use UsesSandbox;

    /**
     * @runInSeparateProcess
     */
    public function testRecordsFromAProcessOfItsOwn(): void
    {
        Probe::record($this->sandbox, __METHOD__);
        self::assertTrue(true);
    }
}
