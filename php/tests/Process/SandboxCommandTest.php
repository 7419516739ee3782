<?php

declare(strict_types=1);

namespace CardSandbox\Tests\Process;

use CardSandbox\Process\SandboxCommand;
use CardSandbox\Process\SandboxProcess;
use CardSandbox\SandboxStartException;
use CardSandbox\Tests\Support\Repository;
use PHPUnit\Framework\TestCase;

/** The order every kit looks in: CARD_SANDBOX_COMMAND, node_modules/.bin, npx --no, PATH. */
final class SandboxCommandTest extends TestCase
{
    private string $dir = '';

    protected function setUp(): void
    {
        $this->dir = sys_get_temp_dir() . '/sandbox-command-' . bin2hex(random_bytes(4));
        mkdir($this->dir . '/project/app', 0700, true);
        mkdir($this->dir . '/bin');
    }

    protected function tearDown(): void
    {
        exec('rm -rf ' . escapeshellarg($this->dir));
    }

    public function testSplitsACommandLineAsAShellWould(): void
    {
        self::assertSame(['node', '/a b/cli.js', 'it\'s', 'say "hi"', 'x y', ''], SandboxCommand::split(
            "  node '/a b/cli.js' it\\'s \"say \\\"hi\\\"\" x\\ y ''  ",
        ));
        $this->expectException(SandboxStartException::class);
        SandboxCommand::split("node 'unclosed");
    }

    public function testTakesCardSandboxCommandFirst(): void
    {
        $this->script('project/node_modules/.bin/card-sandbox');
        $found = SandboxCommand::candidates(['CARD_SANDBOX_COMMAND' => 'node /x/cli.js --quirks off', 'PATH' => (string) getenv('PATH')], $this->dir . '/project/app');
        self::assertSame([['command' => ['node', '/x/cli.js', '--quirks', 'off'], 'source' => 'CARD_SANDBOX_COMMAND']], $found);
    }

    public function testThenTheNearestNodeModulesBinAbove(): void
    {
        $bin = $this->script('project/node_modules/.bin/card-sandbox');
        $this->script('bin/npx');
        $found = SandboxCommand::candidates(['PATH' => $this->dir . '/bin'], $this->dir . '/project/app');
        self::assertSame([['command' => [$bin], 'source' => 'node_modules/.bin']], $found);
    }

    public function testThenNpxWhichNeverDownloadsThenThePath(): void
    {
        $onPath = $this->script('bin/card-sandbox');
        $npx = $this->script('bin/npx');
        $found = SandboxCommand::candidates(['PATH' => $this->dir . '/bin'], $this->dir . '/project/app');
        self::assertSame([
            ['command' => [$npx, '--no', '--', 'card-sandbox'], 'source' => 'npx'],
            ['command' => [$onPath], 'source' => 'PATH'],
        ], $found);
    }

    public function testStartsTheOneOnThePathWhenNpxCannotFindThePackage(): void
    {
        $this->script('bin/npx', "echo 'npm error could not determine executable to run' >&2; exit 1");
        $this->script('bin/card-sandbox', 'exec node ' . escapeshellarg(Repository::dist('bin/card-sandbox.js')) . ' "$@"');
        $node = dirname((string) exec('command -v node'));
        $sandbox = SandboxProcess::start(env: ['PATH' => $this->dir . '/bin:' . $node], cwd: $this->dir . '/project/app');
        try {
            self::assertSame('PATH', $sandbox->source);
            self::assertStringStartsWith('http://127.0.0.1:', $sandbox->url);
        } finally {
            $sandbox->stop();
        }
    }

    /** An executable shell script in the temporary folder; its path. */
    private function script(string $path, string $body = 'exit 0'): string
    {
        $file = $this->dir . '/' . $path;
        if (!is_dir(dirname($file))) {
            mkdir(dirname($file), 0700, true);
        }
        file_put_contents($file, "#!/bin/sh\n{$body}\n");
        chmod($file, 0700);
        return $file;
    }
}
