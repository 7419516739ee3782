<?php

declare(strict_types=1);

namespace CardSandbox\Process;

use CardSandbox\SandboxStartException;

/**
 * PHP's built-in server (`php -S`) as a child of the test process, on a port the kit picks and
 * checks: a port that was free a moment before, which the server then says it listens on (a port
 * taken in between is tried again with another). It runs under a small supervisor that stops it
 * when the test process ends, however it ends. The webhook receiver runs on it; so can the
 * webhook endpoint of the backend under test:
 *
 * ```php
 * $backend = PhpServer::start(__DIR__ . '/../public/index.php', env: ['ALAL_API_KEY' => $token]);
 * $this->sandbox->setWebhook($backend->url . '/webhooks/alal');
 * ```
 */
final class PhpServer
{
    private const ATTEMPTS = 5;

    private function __construct(
        private readonly ChildProcess $child,
        /** Where others reach it: `http://<advertised host>:<port>`, no trailing slash. */
        public readonly string $url,
        public readonly int $port,
    ) {
    }

    /**
     * @param string                $router         the router script (`php -S … router.php`): a front controller, or any PHP file
     * @param string|null           $docroot        the document root (default: the router's folder)
     * @param string                $host           the address to bind: `127.0.0.1`; `0.0.0.0` for a sandbox in a container
     * @param string|null           $advertisedHost the host in `url` (default: the bound address; 127.0.0.1 for 0.0.0.0)
     * @param array<string, string> $env            variables for the server's scripts, beside this process's
     * @param float                 $timeout        seconds to wait for it to listen
     * @param string|null           $removeWhenDone a folder of the server's own (what it writes), removed once it has stopped,
     *                                              however the test process ended
     *
     * @throws SandboxStartException
     */
    public static function start(
        string $router,
        ?string $docroot = null,
        string $host = '127.0.0.1',
        ?string $advertisedHost = null,
        array $env = [],
        float $timeout = 10.0,
        ?string $removeWhenDone = null,
    ): self {
        if (!is_file($router)) {
            throw new SandboxStartException("card-sandbox: no router script at {$router}");
        }
        $advertisedHost ??= self::reachable($host);
        $supervisor = dirname(__DIR__, 2) . '/resources/supervise.php';
        $lastOutput = '';
        for ($attempt = 1; $attempt <= self::ATTEMPTS; $attempt++) {
            $port = self::freePort($host);
            $child = ChildProcess::start(
                [PHP_BINARY, $supervisor, $host, (string) $port, $docroot ?? dirname($router), $router, $removeWhenDone ?? ''],
                $env + getenv(),
            );
            if (self::waitUntilListening($child, $host, $port, $timeout)) {
                return new self($child, 'http://' . self::hostInUrl($advertisedHost) . ':' . $port, $port);
            }
            $lastOutput = $child->outputTail();
            $child->stop(5.0, stdinFirst: true);
            // another process took the port in between: another one
            if (!str_contains($lastOutput, 'Address already in use')) {
                break;
            }
        }
        throw new SandboxStartException("card-sandbox: PHP's built-in server did not listen on {$host}: {$lastOutput}");
    }

    /** The supervisor's process id. */
    public function pid(): int
    {
        return $this->child->pid();
    }

    /** What the server has printed: a line per request, and its errors. */
    public function output(): string
    {
        return $this->child->output();
    }

    /** Stops the server (its supervisor's stdin closed) and waits for it. Safe to call twice. */
    public function stop(): void
    {
        $this->child->stop(5.0, stdinFirst: true);
    }

    /** A port nothing listens on now, from the system. */
    private static function freePort(string $host): int
    {
        $socket = @stream_socket_server('tcp://' . self::hostInUrl($host) . ':0', $code, $message);
        if ($socket === false) {
            throw new SandboxStartException("card-sandbox: cannot bind {$host}: {$message}");
        }
        $name = (string) stream_socket_get_name($socket, false);
        fclose($socket);
        return (int) substr($name, strrpos($name, ':') + 1);
    }

    /** Whether the server said it listens on the port, and a connection to it gets through. */
    private static function waitUntilListening(ChildProcess $child, string $host, int $port, float $timeout): bool
    {
        $started = sprintf('Development Server (http://%s:%d) started', self::hostInUrl($host), $port);
        $deadline = microtime(true) + $timeout;
        while (microtime(true) < $deadline && $child->isRunning()) {
            if (str_contains($child->output(), $started)) {
                $connection = @stream_socket_client('tcp://' . self::hostInUrl(self::reachable($host)) . ':' . $port, $code, $message, 1.0);
                if ($connection !== false) {
                    fclose($connection);
                    return true;
                }
            }
            usleep(20_000);
        }
        return false;
    }

    /** Where this machine reaches a server bound to `$host`: loopback for the any-address. */
    private static function reachable(string $host): string
    {
        return match ($host) {
            '0.0.0.0' => '127.0.0.1',
            '::' => '::1',
            default => $host,
        };
    }

    private static function hostInUrl(string $host): string
    {
        return str_contains($host, ':') ? "[{$host}]" : $host;
    }
}
