<?php

declare(strict_types=1);

namespace CardSandbox\Tests;

use CardSandbox\Process\SandboxProcess;
use CardSandbox\Tests\Support\InnerRun;
use CardSandbox\Tests\Support\Processes;
use PHPUnit\Framework\TestCase;

/**
 * The run's sandbox, seen from a whole PHPUnit run (tests/Fixtures/Run, run by the same PHPUnit
 * through the kit's bootstrap): one for the run, nothing left after it however the run ends,
 * attached through CARD_SANDBOX_URL, and a clear error when none can be had.
 */
final class TestRunTest extends TestCase
{
    /** A run whose tests all pass, for the tests that read one (it is made once). */
    private static ?InnerRun $passing = null;

    public static function tearDownAfterClass(): void
    {
        self::$passing = null;
    }

    public function testOneSandboxServesTheWholeRunAndNothingIsLeftAfterIt(): void
    {
        $run = self::passingRun();

        $lines = explode("\n", $run->output());
        self::assertStringStartsWith('card-sandbox: started card-sandbox ', $lines[0]);
        self::assertSame(1, substr_count($run->output(), 'card-sandbox: started'), $run->output());
        self::assertStringNotContainsString('attached', $run->output(), 'the isolated test used the run\'s sandbox as its own');
        $records = $run->records();
        self::assertCount(3, $records, $run->output());
        // the isolated test's PHP ran the bootstrap too, and used the run's sandbox
        self::assertCount(1, array_unique(array_column($records, 'url')));
        $pids = array_values(array_filter(array_unique(array_column($records, 'sandbox_pid'))));
        self::assertCount(1, $pids, 'one sandbox process, seen by the tests of the first PHP');
        self::assertContains($pids[0], $run->processesSeen());
        self::assertNotEmpty(array_diff($run->processesSeen(), $pids), 'the receivers were seen too');
        self::assertSame([], Processes::waitUntilGone($run->processesSeen()), 'processes left after the run');
    }

    public function testGivesEachTestATenantOfItsOwn(): void
    {
        $tokens = array_column(self::passingRun()->records(), 'token');
        self::assertCount(3, array_unique($tokens));
        self::assertMatchesRegularExpression('/^phpunit-[0-9a-f]{6}-[0-9a-f]{10}$/', $tokens[0]);
        self::assertCount(1, array_unique(array_map(static fn (string $token): string => substr($token, 0, 15), $tokens)), 'one run word');
    }

    public function testLeavesNothingAfterAFatalError(): void
    {
        $run = InnerRun::start(['PROBE_MODE' => 'fatal']);
        self::assertSame(255, $run->finish(), $run->output());
        self::assertStringContainsString('Allowed memory size', $run->output());
        self::assertNotSame([], $run->processesSeen());
        self::assertSame([], Processes::waitUntilGone($run->processesSeen()), 'processes left after the fatal error');
    }

    public function testLeavesNothingAfterPhpIsKilledWithSigkill(): void
    {
        $run = InnerRun::start(['PROBE_MODE' => 'hang']);
        $run->waitUntilReady();
        $seen = $run->processesSeen();
        self::assertNotSame([], $seen);
        try {
            $run->kill();
            self::assertSame(137, $run->finish());
            self::assertSame([], Processes::waitUntilGone($seen), "processes left after PHP was killed:\n" . $run->output());
        } finally {
            Processes::killAll($seen);
        }
    }

    public function testAttachesToCardSandboxUrlStartingNoneAndGivesEachTenantAManualClock(): void
    {
        $sandbox = SandboxProcess::start(['clock' => 'real']);
        try {
            $run = InnerRun::start(['CARD_SANDBOX_URL' => $sandbox->url . '/v1']);
            self::assertSame(0, $run->finish(), $run->output());
            self::assertStringStartsWith(
                "card-sandbox: attached to the sandbox at {$sandbox->url} (CARD_SANDBOX_URL); starting none",
                $run->output(),
            );
            self::assertStringNotContainsString('card-sandbox: started', $run->output());
            foreach ($run->records() as $record) {
                self::assertSame([$sandbox->url, true, null, 'manual'], [$record['url'], $record['attached'], $record['sandbox_pid'], $record['clock']]);
            }
            self::assertCount(3, $run->records());
        } finally {
            $sandbox->stop();
        }
    }

    public function testRefusesServerOptionsWhenAttaching(): void
    {
        $run = InnerRun::start(['CARD_SANDBOX_URL' => 'http://127.0.0.1:9', 'CARD_SANDBOX_SEED' => '1', 'CARD_SANDBOX_SDK_COMPAT' => 'on']);
        self::assertSame(1, $run->finish());
        self::assertStringContainsString('CARD_SANDBOX_URL is set (http://127.0.0.1:9)', $run->output());
        self::assertStringContainsString('cannot apply: CARD_SANDBOX_SEED, CARD_SANDBOX_SDK_COMPAT', $run->output());
        self::assertSame([], $run->records());
    }

    public function testSaysWhatWasTriedWhenNoSandboxCanBeFound(): void
    {
        $empty = sys_get_temp_dir() . '/no-project-' . bin2hex(random_bytes(4));
        mkdir($empty);
        try {
            $run = InnerRun::start(['CARD_SANDBOX_COMMAND' => false, 'PATH' => '/nonexistent-bin'], $empty);
            self::assertSame(1, $run->finish());
        } finally {
            rmdir($empty);
        }
        self::assertStringStartsWith(
            "card-sandbox: no sandbox could be started. Tried: CARD_SANDBOX_COMMAND (not set); node_modules/.bin/card-sandbox in {$empty} and the folders above it; npx (not on PATH); card-sandbox on PATH.\n"
            . 'Two ways out: install card-sandbox in the project with npm',
            $run->output(),
        );
        self::assertSame([], $run->records());
    }

    public function testShowsWhatTheCommandPrintedWhenItCannotStart(): void
    {
        $run = InnerRun::start(['CARD_SANDBOX_COMMAND' => 'node /nonexistent/card-sandbox.js']);
        self::assertSame(1, $run->finish());
        self::assertStringStartsWith(
            'card-sandbox: node /nonexistent/card-sandbox.js --port 0 --clock manual --log json --exit-with-parent on (CARD_SANDBOX_COMMAND) exited (1) before it was listening:',
            $run->output(),
        );
        self::assertStringContainsString("Cannot find module '/nonexistent/card-sandbox.js'", $run->output());

        $missing = InnerRun::start(['CARD_SANDBOX_COMMAND' => '/nonexistent/card-sandbox --seed 1']);
        self::assertSame(1, $missing->finish());
        self::assertStringStartsWith('card-sandbox: CARD_SANDBOX_COMMAND runs /nonexistent/card-sandbox, which is not a file nor on the PATH', $missing->output());
    }

    private static function passingRun(): InnerRun
    {
        if (self::$passing === null) {
            self::$passing = InnerRun::start();
            self::assertSame(0, self::$passing->finish(), self::$passing->output());
        }
        return self::$passing;
    }
}
