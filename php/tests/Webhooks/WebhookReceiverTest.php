<?php

declare(strict_types=1);

namespace CardSandbox\Tests\Webhooks;

use CardSandbox\PHPUnit\UsesSandbox;
use CardSandbox\SandboxClient;
use CardSandbox\SandboxConnectionException;
use CardSandbox\Tests\Support\Eventually;
use CardSandbox\Webhooks\Delivery;
use CardSandbox\Webhooks\Signature;
use CardSandbox\Webhooks\WebhookReceiver;
use CardSandbox\Webhooks\WebhookTimeoutException;
use PHPUnit\Framework\TestCase;

final class WebhookReceiverTest extends TestCase
{
    use UsesSandbox;

    public function testWaitsForASignedDeliveryAndGivesItsPayload(): void
    {
        $receiver = $this->webhookReceiver();
        self::assertSame(['url' => $receiver->url, 'url_source' => 'tenant'], array_intersect_key($this->sandbox->webhook(), ['url' => 1, 'url_source' => 1]));
        $first = $this->widgetUser('+221770000001');
        $second = $this->widgetUser('+221770000002');
        $this->sandbox->transition('card-users', $first, 'passed');
        $this->sandbox->transition('card-users', $second, 'failed');

        $passed = $receiver->waitFor('card_user_verification.successful', fn (array $event): bool => $event['data']['reference'] === $first);
        self::assertSame(['card_user_verification.successful', $first, 'passed'], [$passed['event'], $passed['data']['reference'], $passed['data']['status']]);
        $failed = $receiver->waitFor('card_user_verification.failed');
        self::assertSame($second, $failed['data']['reference']);

        $delivery = $receiver->deliveries()[0];
        self::assertTrue($delivery->verified);
        self::assertSame('1', $delivery->headers['x-alal-delivery-attempt']);
        self::assertStringStartsWith('evt_', $delivery->headers['x-alal-event-id']);
        self::assertSame(json_decode($delivery->rawBody, true), $delivery->body);
    }

    public function testATimeoutNamesWhatDidArrive(): void
    {
        $receiver = $this->webhookReceiver();
        $user = $this->widgetUser('+221770000001');
        $this->sandbox->transition('card-users', $user, 'passed');
        $receiver->waitFor('card_user_verification.successful');
        $forged = Signature::signPayload(['event' => 'card_creation.successful', 'data' => []], 'not-the-secret');
        self::assertSame(401, self::post($receiver->url, $forged['body'], $forged['headers']));

        try {
            $receiver->waitFor('card_creation.successful', null, 0.2);
            self::fail('no card_creation.successful came');
        } catch (WebhookTimeoutException $error) {
            self::assertSame(
                'no verified card_creation.successful delivery within 0.2 s (received: card_user_verification.successful, card_creation.successful (bad signature))',
                $error->getMessage(),
            );
        }
        $this->expectExceptionMessage(
            'no verified card_user_verification.successful delivery that the predicate accepts within 0.2 s '
            . '(received: card_user_verification.successful (not accepted), card_creation.successful (bad signature))',
        );
        $receiver->waitFor('card_user_verification.successful', fn (array $event): bool => false, 0.2);
    }

    public function testARefusedDeliveryIsRetriedAfterTheClockMoves(): void
    {
        $receiver = $this->webhookReceiver();
        $receiver->respondWith(503);
        $user = $this->widgetUser('+221770000001');
        $this->sandbox->transition('card-users', $user, 'passed');
        $refused = Eventually::value(
            fn (): array => $this->sandbox->webhooks()['data'],
            fn (array $events): bool => ($events[0]['attempts'][0]['status_code'] ?? null) === 503,
        );
        self::assertSame(['pending', 503], [$refused[0]['status'], $refused[0]['attempts'][0]['status_code']]);
        self::assertCount(1, $receiver->deliveries());

        $receiver->respondWith(200);
        $this->sandbox->advanceClock('10s'); // the first retry

        $attempts = Eventually::value(
            fn (): array => array_map(static fn (Delivery $delivery): string => $delivery->headers['x-alal-delivery-attempt'], $receiver->deliveries()),
            fn (array $attempts): bool => count($attempts) === 2,
        );
        self::assertSame(['1', '2'], $attempts);
        $delivered = Eventually::value(
            fn (): array => $this->sandbox->webhooks()['data'][0],
            fn (array $event): bool => $event['status'] === 'delivered',
        );
        self::assertSame([503, 200], array_column($delivered['attempts'], 'status_code'));
    }

    public function testSignsWithTheSecretItIsGivenAndRefusesAnother(): void
    {
        $receiver = $this->webhookReceiver('a-secret-of-its-own');
        self::assertSame(['a-secret-of-its-own', 'tenant'], [$this->sandbox->webhook()['secret'], $this->sandbox->webhook()['secret_source']]);
        $this->sandbox->transition('card-users', $this->widgetUser('+221770000001'), 'passed');
        $receiver->waitFor('card_user_verification.successful');

        // the sandbox signing with another secret: refused (401), kept unverified
        $this->sandbox->setWebhook($receiver->url, 'another-secret');
        $this->sandbox->transition('card-users', $this->widgetUser('+221770000002'), 'failed');
        $seen = Eventually::value(fn (): array => $receiver->deliveries(), fn (array $all): bool => count($all) === 2);
        self::assertSame([true, false], array_map(static fn (Delivery $delivery): bool => $delivery->verified, $seen));
        self::assertSame('card_user_verification.failed', $seen[1]->event);
    }

    public function testBindsTheAddressAndAdvertisesTheHostItIsGiven(): void
    {
        $receiver = $this->webhookReceiver(host: '0.0.0.0', advertisedHost: '127.0.0.1');
        self::assertMatchesRegularExpression('~^http://127\.0\.0\.1:\d+/webhooks$~', $receiver->url);
        $this->sandbox->transition('card-users', $this->widgetUser('+221770000001'), 'passed');
        self::assertSame('card_user_verification.successful', $receiver->waitFor('card_user_verification.successful')['event']);

        $named = $this->webhookReceiver(advertisedHost: 'receiver.test');
        self::assertMatchesRegularExpression('~^http://receiver\.test:\d+/webhooks$~', $named->url);
        self::assertSame($named->url, $this->sandbox->webhook()['url']);
    }

    public function testTakesTheAddressesFromTheEnvironmentWhenNotGiven(): void
    {
        putenv('CARD_SANDBOX_WEBHOOK_BIND=0.0.0.0');
        putenv('CARD_SANDBOX_WEBHOOK_HOST=172.17.0.1');
        try {
            $receiver = $this->webhookReceiver();
        } finally {
            putenv('CARD_SANDBOX_WEBHOOK_BIND');
            putenv('CARD_SANDBOX_WEBHOOK_HOST');
        }
        self::assertMatchesRegularExpression('~^http://172\.17\.0\.1:\d+/webhooks$~', $receiver->url);
        // bound to every address: this machine reaches it on loopback too
        $port = (int) parse_url($receiver->url, PHP_URL_PORT);
        $forged = Signature::signPayload(['event' => 'x', 'data' => []], 'not-the-secret');
        self::assertSame(401, self::post("http://127.0.0.1:{$port}/webhooks", $forged['body'], $forged['headers']));
    }

    public function testCloseStopsItAndPutsTheEndpointBackAsItWas(): void
    {
        $this->sandbox->setWebhook('http://127.0.0.1:9/hooks', 'own-secret');
        $receiver = WebhookReceiver::start($this->sandbox);
        self::assertSame([$receiver->url, $this->sandbox->token], [$this->sandbox->webhook()['url'], $this->sandbox->webhook()['secret']]);

        $receiver->close();

        $endpoint = $this->sandbox->webhook();
        self::assertSame(['http://127.0.0.1:9/hooks', 'own-secret'], [$endpoint['url'], $endpoint['secret']]);
        $this->expectException(SandboxConnectionException::class);
        (new SandboxClient($receiver->url, 'x', 2.0))->health();
    }

    public function testPrintsTheSecretMasked(): void
    {
        $receiver = $this->webhookReceiver('a-long-webhook-secret');
        self::assertStringNotContainsString('a-long-webhook-secret', print_r($receiver, true));
    }

    /** A card user of the widget flow (pending until moved), its reference. */
    private function widgetUser(string $phone): string
    {
        return $this->sandbox->v1('POST', '/card-users/create', ['phone' => $phone])['userCard']['reference'];
    }

    /** @param array<string, string> $headers */
    private static function post(string $url, string $body, array $headers): int
    {
        $curl = curl_init($url);
        curl_setopt_array($curl, [
            CURLOPT_POST => true,
            CURLOPT_POSTFIELDS => $body,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_HTTPHEADER => array_map(static fn (string $name, string $value): string => "{$name}: {$value}", array_keys($headers), $headers),
        ]);
        curl_exec($curl);
        return (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
    }
}
