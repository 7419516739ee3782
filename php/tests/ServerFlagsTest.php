<?php

declare(strict_types=1);

namespace CardSandbox\Tests;

use CardSandbox\Tests\Support\Repository;
use CardSandbox\TestRun;
use PHPUnit\Framework\TestCase;

/** The server options refused when attaching are the CLI's flags, but those about the process. */
final class ServerFlagsTest extends TestCase
{
    /** Flags that say how the process runs, not what the sandbox serves. */
    private const PROCESS_FLAGS = ['pid-file', 'exit-with-parent'];

    public function testNamesEveryFlagOfServeThatSetsUpTheSandbox(): void
    {
        $script = <<<'JS'
            const { FLAGS } = await import(process.argv[1])
            console.log(JSON.stringify(FLAGS.map((flag) => flag.name)))
            JS;
        $flags = json_decode(Repository::node($script, [Repository::dist('cli/flags.js')]), true);
        self::assertContains('seed', $flags, 'the CLI flags as read');
        $expected = array_values(array_diff($flags, self::PROCESS_FLAGS));
        self::assertSame($expected, TestRun::SERVER_FLAGS);
    }
}
