<?php

declare(strict_types=1);

namespace CardSandbox\Tests\Webhooks;

use CardSandbox\PHPUnit\UsesSandbox;
use CardSandbox\Tests\Support\Repository;
use CardSandbox\Webhooks\Signature;
use PHPUnit\Framework\TestCase;

/** The signature rule of src/webhooks/sign.ts, as the Node helpers of card-sandbox/testing apply it. */
final class SignatureTest extends TestCase
{
    use UsesSandbox;

    private const PAYLOAD = [
        'event' => 'card_creation.successful',
        'data' => ['reference' => 'r-1', 'name' => "Awa N'Diaye — Dakar/Plateau", 'line' => "a\u{2028}b", 'balance' => '1500', 'amount' => 1.5, 'none' => null, 'list' => [1, 2]],
    ];

    public function testVerifiesADeliveryOfTheSandbox(): void
    {
        $receiver = $this->webhookReceiver();
        $user = $this->sandbox->v1('POST', '/card-users/create', ['phone' => '+221770000001'])['userCard']['reference'];
        $this->sandbox->transition('card-users', $user, 'passed');
        $receiver->waitFor('card_user_verification.successful');
        $delivery = $receiver->deliveries()[0];
        $header = $delivery->headers[Signature::HEADER];

        self::assertTrue(Signature::verify($delivery->rawBody, $header, $this->sandbox->token));
        self::assertTrue(Signature::verify($delivery->rawBody, strtoupper($header), $this->sandbox->token));
        self::assertFalse(Signature::verify($delivery->rawBody, $header, 'another-secret'));
        self::assertFalse(Signature::verify($delivery->rawBody . ' ', $header, $this->sandbox->token));
    }

    public function testRefusesAHeaderThatIsNoSignature(): void
    {
        $body = '{"event":"x"}';
        $signature = Signature::sign($body, 's');
        self::assertTrue(Signature::verify($body, $signature, 's'));
        foreach ([null, '', [$signature], substr($signature, 0, 127), $signature . '0', 'sha512=' . $signature] as $header) {
            self::assertFalse(Signature::verify($body, $header, 's'), var_export($header, true));
        }
    }

    public function testSignsTheSameBytesAsTheNodeHelper(): void
    {
        $script = <<<'JS'
            const { signPayload, verifySignature } = await import(process.argv[1])
            const [body, secret, header] = process.argv.slice(2)
            const fromText = signPayload(body, secret)
            const fromObject = signPayload(JSON.parse(body), secret)
            console.log(JSON.stringify({ fromText, fromObject, verified: verifySignature(body, header, secret) }))
            JS;
        $body = (string) json_encode(self::PAYLOAD);
        $secret = 'tenant-token-é';
        $node = json_decode(Repository::node($script, [Repository::dist('testing.js'), $body, $secret, strtoupper(Signature::sign($body, $secret))]), true);

        self::assertSame($node['fromText']['signature'], Signature::sign($body, $secret));
        self::assertSame($node['fromText'], Signature::signPayload($body, $secret));
        // an array is encoded as JSON.stringify writes it, so both sign the same bytes
        self::assertSame($node['fromObject'], Signature::signPayload(self::PAYLOAD, $secret));
        self::assertTrue($node['verified']);
    }
}
