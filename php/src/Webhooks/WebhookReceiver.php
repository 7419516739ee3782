<?php

declare(strict_types=1);

namespace CardSandbox\Webhooks;

use CardSandbox\Masking;
use CardSandbox\Process\PhpServer;
use CardSandbox\SandboxClient;

/**
 * A webhook receiver for one tenant: PHP's built-in server as a child process, registered as the
 * tenant's webhook URL, checking each delivery's signature and writing each to a temporary
 * folder this object reads. A bad signature is answered 401, so the sandbox retries it.
 *
 * ```php
 * $receiver = WebhookReceiver::start($sandbox);
 * // … what makes the sandbox issue the card …
 * $event = $receiver->waitFor('card_creation.successful', fn (array $e) => $e['data']['reference'] === $card);
 * $receiver->close();
 * ```
 *
 * @phpstan-type Payload array{event: string, data: array<string, mixed>}
 */
final class WebhookReceiver
{
    /** @var array<string, Delivery> by file name, oldest first */
    private array $deliveries = [];

    private bool $closed = false;

    private function __construct(
        private readonly SandboxClient $client,
        private readonly PhpServer $server,
        private readonly string $dir,
        /** Where the tenant's webhooks now go. */
        public readonly string $url,
        /** What signs them while the receiver listens. */
        public readonly string $secret,
        /** @var array{url: string|null, url_source: string, secret: string, secret_source: string} the endpoint before, put back by close() */
        private readonly array $before,
    ) {
    }

    /**
     * Starts a receiver and points the client's tenant's webhooks at it, signed with `$secret`.
     *
     * @param string|null $secret         what signs the tenant's webhooks (default: the token, the sandbox's own default)
     * @param string|null $host           the address to bind (`0.0.0.0` when the sandbox runs in a container);
     *                                    default: CARD_SANDBOX_WEBHOOK_BIND, else 127.0.0.1
     * @param string|null $advertisedHost the host in the URL the sandbox is given (`host.docker.internal`);
     *                                    default: CARD_SANDBOX_WEBHOOK_HOST, else the bound address
     */
    public static function start(
        SandboxClient $client,
        ?string $secret = null,
        ?string $host = null,
        ?string $advertisedHost = null,
    ): self {
        $secret ??= $client->token;
        $host ??= self::setting('CARD_SANDBOX_WEBHOOK_BIND') ?? '127.0.0.1';
        $advertisedHost ??= self::setting('CARD_SANDBOX_WEBHOOK_HOST');
        $dir = sys_get_temp_dir() . '/card-sandbox-webhooks-' . bin2hex(random_bytes(6));
        mkdir($dir . '/deliveries', 0700, true);
        self::writeConfig($dir, $secret, 200);
        $server = PhpServer::start(
            dirname(__DIR__, 2) . '/resources/webhook-receiver.php',
            docroot: $dir,
            host: $host,
            advertisedHost: $advertisedHost,
            env: ['CARD_SANDBOX_RECEIVER_DIR' => $dir],
            removeWhenDone: $dir,
        );
        $url = $server->url . '/webhooks';
        try {
            $before = $client->webhook();
        } catch (\Throwable $error) {
            $server->stop();
            throw $error;
        }
        $receiver = new self($client, $server, $dir, $url, $secret, $before);
        // stopped when PHP ends, if the test did not close it (a fatal error)
        register_shutdown_function([$receiver, 'stop']);
        try {
            $client->setWebhook($url, $secret);
        } catch (\Throwable $error) {
            $receiver->stop();
            throw $error;
        }
        return $receiver;
    }

    /**
     * Every request so far, oldest first, verified or not.
     *
     * @return list<Delivery>
     */
    public function deliveries(): array
    {
        $this->read();
        return array_values($this->deliveries);
    }

    /**
     * The payload of the first verified delivery of `$event` (past or to come) that `$predicate`
     * accepts; after `$timeout` seconds, a WebhookTimeoutException naming what did arrive.
     *
     * @param (callable(Payload): bool)|null $predicate given the payload: `['event' => …, 'data' => […]]`
     *
     * @return Payload
     *
     * @throws WebhookTimeoutException
     */
    public function waitFor(string $event, ?callable $predicate = null, float $timeout = 5.0): array
    {
        $deadline = microtime(true) + $timeout;
        while (true) {
            foreach ($this->deliveries() as $delivery) {
                if ($delivery->verified && $delivery->event === $event && ($predicate === null || $predicate($delivery->body))) {
                    return $delivery->body;
                }
            }
            if (microtime(true) >= $deadline) {
                throw new WebhookTimeoutException(sprintf(
                    'no verified %s delivery%s within %s s (received: %s)',
                    $event,
                    $predicate === null ? '' : ' that the predicate accepts',
                    $timeout,
                    $this->received($event),
                ));
            }
            usleep(20_000);
        }
    }

    /**
     * What the receiver answers a verified delivery from now on (200 by default): 500 or 503 to
     * make the sandbox retry.
     */
    public function respondWith(int $status): void
    {
        self::writeConfig($this->dir, $this->secret, $status);
    }

    /** Stops listening and puts the tenant's webhook endpoint back as it was. */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->stop();
        $own = fn (string $what): ?string => $this->before["{$what}_source"] === 'tenant' ? $this->before[$what] : null;
        try {
            $this->client->setWebhook($own('url'), $own('secret'));
        } catch (\RuntimeException) {
            // the sandbox has gone: nothing to take back
        }
    }

    /** Stops the server and removes the folder, without a word to the sandbox. Safe to call twice. */
    public function stop(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        // its supervisor removes the folder once the server has stopped; what it could not, here
        $this->server->stop();
        foreach (array_diff(@scandir($this->dir . '/deliveries') ?: [], ['.', '..']) as $file) {
            @unlink($this->dir . '/deliveries/' . $file);
        }
        @unlink($this->dir . '/config.json');
        @rmdir($this->dir . '/deliveries');
        @rmdir($this->dir);
    }

    /** Reads the deliveries written since the last read. */
    private function read(): void
    {
        if ($this->closed) {
            return;
        }
        $files = glob($this->dir . '/deliveries/*.json') ?: [];
        sort($files);
        foreach ($files as $file) {
            $name = basename($file);
            if (isset($this->deliveries[$name])) {
                continue;
            }
            /** @var array{raw_body: string, headers: array<string, string>, verified: bool} $saved */
            $saved = json_decode((string) file_get_contents($file), true);
            $this->deliveries[$name] = Delivery::fromRequest(base64_decode($saved['raw_body']), $saved['headers'], $saved['verified']);
        }
    }

    /** What arrived, for the timeout's message: `card_user_verification.successful, ? (bad signature)`. */
    private function received(string $event): string
    {
        $seen = array_map(static function (Delivery $delivery) use ($event): string {
            $name = $delivery->event === '' ? '?' : $delivery->event;
            if (!$delivery->verified) {
                return $name . ' (bad signature)';
            }
            return $delivery->event === $event ? $name . ' (not accepted)' : $name;
        }, $this->deliveries);
        return $seen === [] ? 'nothing' : implode(', ', $seen);
    }

    /**
     * What var_dump() and print_r() show: the secret masked.
     *
     * @return array{url: string, secret: string, deliveries: int}
     */
    public function __debugInfo(): array
    {
        return ['url' => $this->url, 'secret' => Masking::token($this->secret), 'deliveries' => count($this->deliveries)];
    }

    private static function setting(string $variable): ?string
    {
        $value = getenv($variable);
        return $value === false || $value === '' ? null : $value;
    }

    private static function writeConfig(string $dir, string $secret, int $status): void
    {
        $temporary = $dir . '/.config.json';
        file_put_contents($temporary, json_encode(['secret' => $secret, 'status' => $status], JSON_THROW_ON_ERROR));
        chmod($temporary, 0600);
        rename($temporary, $dir . '/config.json');
    }
}
