<?php

declare(strict_types=1);

namespace CardSandbox\Tests\Fixtures\Run;

use CardSandbox\SandboxClient;
use CardSandbox\Tests\Support\Processes;
use CardSandbox\TestRun;

/**
 * What a test of the probed run saw, appended as a JSON line to PROBE_FILE: the run's sandbox,
 * its tenant, and every process under the run's PHP at that moment.
 */
final class Probe
{
    public static function record(SandboxClient $sandbox, string $test): void
    {
        $record = [
            'test' => $test,
            'url' => TestRun::url(),
            'attached' => TestRun::attached(),
            'sandbox_pid' => TestRun::process()?->pid(),
            'token' => $sandbox->token,
            'clock' => $sandbox->clock()['mode'],
            'card_users' => count($sandbox->v1('GET', '/cards')['data']),
            'pid' => getmypid(),
            'descendants' => Processes::descendantsOf(getmypid()),
        ];
        file_put_contents((string) getenv('PROBE_FILE'), json_encode($record) . "\n", FILE_APPEND | LOCK_EX);
    }

    /** What PROBE_MODE asks for once recorded: nothing, a fatal error, or hanging until killed. */
    public static function end(): void
    {
        switch (getenv('PROBE_MODE')) {
            case 'fatal':
                ini_set('memory_limit', '16M');
                $all = [];
                while (true) {
                    $all[] = str_repeat('x', 1024 * 1024);
                }
                // no break: the line above never ends
            case 'hang':
                touch((string) getenv('PROBE_FILE') . '.ready');
                sleep(120);
        }
    }
}
