<?php

declare(strict_types=1);

namespace WalletBackend\Tests;

use CardSandbox\PHPUnit\UsesSandbox;
use CardSandbox\Process\PhpServer;
use CardSandbox\Webhooks\Signature;
use PHPUnit\Framework\TestCase;
use WalletBackend\Config;
use WalletBackend\WalletBackend;

/**
 * The wallet backend against card-sandbox, as a client team would test it: one sandbox for the
 * run (the kit's bootstrap), a tenant of its own for each test (UsesSandbox), the backend's
 * webhook endpoint served by PHP's built-in server and registered with the sandbox, time moved
 * instead of waited for, and a failure made by a scenario file.
 */
final class WalletBackendTest extends TestCase
{
    use UsesSandbox;

    private WalletBackend $backend;
    private PhpServer $server;
    private string $store;

    protected function setUp(): void
    {
        // ALAL_BASE_URL and ALAL_API_KEY of this test's tenant, for the backend and its server
        $this->sandboxEnv();
        $this->store = (string) tempnam(sys_get_temp_dir(), 'wallet-store-');
        putenv("WALLET_STORE={$this->store}");
        $this->backend = new WalletBackend(Config::fromEnvironment());
        $this->server = PhpServer::start(__DIR__ . '/../public/index.php');
        $this->sandbox->setWebhook($this->server->url . '/webhooks/alal');
    }

    protected function tearDown(): void
    {
        $this->server->stop();
        putenv('WALLET_STORE');
        @unlink($this->store);
    }

    public function testRecordsACardUsersVerificationFromTheSignedWebhook(): void
    {
        $user = $this->backend->registerCardUser('+221770000001', 'awa@example.com');
        self::assertSame('pending', $this->backend->cardUser($user)['status']);

        // the widget would verify the user; in tests the control plane does
        $this->sandbox->transition('card-users', $user, 'passed');

        self::assertSame('passed', $this->eventually(fn () => $this->backend->cardUser($user)['status'], 'passed'));
        $delivered = $this->eventually(fn () => $this->sandbox->webhooks('delivered')['data'][0]['type'] ?? null, 'card_user_verification.successful');
        self::assertSame('card_user_verification.successful', $delivered);
    }

    public function testIssuesACardAndFundsIt(): void
    {
        $card = $this->issuedCard('+221770000002');
        self::assertMatchesRegularExpression('/^\d{4}$/', $this->backend->card($card)['last4']);

        $this->backend->topUpCard($card, 50_000);
        self::assertSame(0, $this->backend->balance($card), 'a recharge is pending until it settles');
        $this->sandbox->advanceClock('5s'); // transaction_settlement

        self::assertSame(50_000, $this->backend->balance($card));
    }

    public function testSettlesACardToWalletTransferWhenTheClockMoves(): void
    {
        $card = $this->fundedCard('+221770000003', 50_000);

        $transfer = $this->backend->sendToWallet($card, 20_000, '+221770000009', 'wave-sn');
        self::assertSame('pending', $this->backend->transferStatus($transfer));
        self::assertSame(30_000, $this->backend->balance($card), 'held while pending');

        $this->sandbox->advanceClock('5s');

        self::assertSame('success', $this->backend->transferStatus($transfer));
        self::assertSame(30_000, $this->backend->balance($card));
    }

    public function testReportsATransferTheWalletOperatorDeclines(): void
    {
        $card = $this->fundedCard('+221770000004', 50_000);
        $scenario = json_decode((string) file_get_contents(__DIR__ . '/scenarios/wallet-transfers-declined.json'), true);
        $this->sandbox->addScenario($scenario);

        $transfer = $this->backend->sendToWallet($card, 20_000, '+221770000009', 'wave-sn');
        $this->sandbox->advanceClock('2s'); // the scenario's outcome_after

        self::assertSame('failed', $this->backend->transferStatus($transfer));
        self::assertSame(50_000, $this->backend->balance($card), 'the hold went back to the card');
    }

    public function testRefusesAWebhookNotSignedWithItsKeyAndGetsTheRetry(): void
    {
        $forged = Signature::signPayload(['event' => 'card_user_verification.successful', 'data' => ['reference' => 'x', 'status' => 'passed']], 'not-the-api-key');
        self::assertSame(401, $this->post($this->server->url . '/webhooks/alal', $forged['body'], $forged['headers']));

        // the sandbox signing with another secret: refused, the event waits for a retry
        $this->sandbox->setWebhook($this->server->url . '/webhooks/alal', 'not-the-api-key');
        $user = $this->backend->registerCardUser('+221770000005');
        $this->sandbox->transition('card-users', $user, 'passed');
        $refused = $this->eventually(fn () => $this->sandbox->webhooks()['data'][0]['attempts'][0]['status_code'] ?? null, 401);
        self::assertSame(401, $refused);
        self::assertSame('pending', $this->backend->cardUser($user)['status']);

        // signed with the API key again: the retry 10 s later gets through
        $this->sandbox->setWebhook($this->server->url . '/webhooks/alal');
        $this->sandbox->advanceClock('10s');

        self::assertSame('passed', $this->eventually(fn () => $this->backend->cardUser($user)['status'], 'passed'));
    }

    public function testSendsTheCardOrderTheApiExpects(): void
    {
        $this->issuedCard('+221770000006');

        $sent = $this->sandbox->requests(method: 'POST', path: '/v1/cards/create');
        self::assertSame(1, $sent['meta']['total']);
        $request = $sent['data'][0]['request'];
        self::assertSame(['card_brand' => 'visa', 'card_type' => 'virtual'], array_intersect_key($request['body'], ['card_brand' => 1, 'card_type' => 1]));
        self::assertSame('application/json', $request['headers']['content-type']);
        self::assertStringNotContainsString($this->sandbox->token, $request['headers']['authorization'], 'the journal masks the token');
    }

    /** A verified user's card, issued: the backend learns both from the webhooks. */
    private function issuedCard(string $phone): string
    {
        $user = $this->backend->registerCardUser($phone);
        $this->sandbox->transition('card-users', $user, 'passed');
        $this->eventually(fn () => $this->backend->cardUser($user)['status'], 'passed');

        $card = $this->backend->issueCard($user);
        self::assertSame('issuing', $card['status']);
        $this->sandbox->advanceClock('5s'); // card_issuing
        self::assertSame('issued', $this->eventually(fn () => $this->backend->card($card['reference'])['status'], 'issued'));
        return $card['reference'];
    }

    private function fundedCard(string $phone, int $amount): string
    {
        $card = $this->issuedCard($phone);
        $this->backend->topUpCard($card, $amount);
        $this->sandbox->advanceClock('5s');
        return $card;
    }

    /**
     * What `$read` gives once it gives `$expected` (webhooks arrive just after the call that
     * causes them), or what it gave last after 5 s, for the assertion to show.
     */
    private function eventually(callable $read, mixed $expected): mixed
    {
        $deadline = microtime(true) + 5;
        while (($value = $read()) !== $expected && microtime(true) < $deadline) {
            usleep(20_000);
        }
        return $value;
    }

    /** @param array<string, string> $headers */
    private function post(string $url, string $body, array $headers): int
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
