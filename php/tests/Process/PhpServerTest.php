<?php

declare(strict_types=1);

namespace CardSandbox\Tests\Process;

use CardSandbox\Process\PhpServer;
use CardSandbox\SandboxStartException;
use CardSandbox\Tests\Support\Processes;
use PHPUnit\Framework\TestCase;

final class PhpServerTest extends TestCase
{
    private const ROUTER = __DIR__ . '/../Fixtures/echo-router.php';

    public function testServesTheRouterWithTheVariablesItIsGivenUntilStopped(): void
    {
        $server = PhpServer::start(self::ROUTER, env: ['ECHO_WORD' => 'hello']);
        self::assertSame("http://127.0.0.1:{$server->port}", $server->url);
        self::assertSame('hello /a/path', self::get($server->url . '/a/path'));
        $underIt = Processes::descendantsOf($server->pid());
        self::assertCount(1, $underIt, 'php -S, under its supervisor');

        $server->stop();

        self::assertSame([], Processes::waitUntilGone([$server->pid(), ...$underIt]));
        self::assertNull(self::get($server->url . '/a/path'));
    }

    public function testAdvertisesTheHostItIsGiven(): void
    {
        $server = PhpServer::start(self::ROUTER, host: '0.0.0.0', advertisedHost: 'backend.test', env: ['ECHO_WORD' => 'x']);
        try {
            self::assertSame("http://backend.test:{$server->port}", $server->url);
            self::assertSame('x /', self::get("http://127.0.0.1:{$server->port}/"));
        } finally {
            $server->stop();
        }
    }

    public function testSaysWhyItCannotStart(): void
    {
        try {
            PhpServer::start(__DIR__ . '/no-such-router.php');
            self::fail('no router');
        } catch (SandboxStartException $error) {
            self::assertStringContainsString('no router script at', $error->getMessage());
        }
        $this->expectExceptionMessage('card-sandbox: cannot bind 203.0.113.7');
        PhpServer::start(self::ROUTER, host: '203.0.113.7');
    }

    private static function get(string $url): ?string
    {
        $curl = curl_init($url);
        curl_setopt_array($curl, [CURLOPT_RETURNTRANSFER => true, CURLOPT_PROXY => '', CURLOPT_TIMEOUT => 5]);
        $body = curl_exec($curl);
        return is_string($body) ? $body : null;
    }
}
