<?php

declare(strict_types=1);

use CardSandbox\PHPUnit\UsesSandbox;
use CardSandbox\SandboxClientException;
use PHPUnit\Framework\TestCase;

final class CardsTest extends TestCase
{
    use UsesSandbox; // $this->sandbox: a tenant of this test's own, reset as the test starts

    public function testIssuesACardToAVerifiedUser(): void
    {
        // your backend under test would make these /v1 calls, against $this->sandbox->baseUrl
        $created = $this->sandbox->v1('POST', '/card-users/create', ['phone' => '+221770000001']);
        $user = $created['userCard']['reference'];
        $this->sandbox->transition('card-users', $user, 'passed'); // what the widget would do
        $order = $this->sandbox->v1('POST', '/cards/create', [
            'card_user_reference' => $user,
            'card_brand' => 'visa',
            'card_type' => 'virtual',
        ]);
        $this->sandbox->advanceClock('5s'); // card_issuing
        $cards = $this->sandbox->v1('GET', '/cards');
        self::assertSame($order['data']['card']['reference'], $cards['data'][0]['reference']);
        self::assertSame('issued', $cards['data'][0]['status']);

        $sent = $this->sandbox->requests(method: 'POST', path: '/v1/cards/create');
        self::assertSame($user, $sent['data'][0]['request']['body']['card_user_reference']);

        try {
            $this->sandbox->transition('card-users', $user, 'pending');
            self::fail('a verified user cannot go back to pending');
        } catch (SandboxClientException $error) {
            self::assertSame(409, $error->getStatus());
        }
    }
}
