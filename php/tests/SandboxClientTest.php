<?php

declare(strict_types=1);

namespace CardSandbox\Tests;

use CardSandbox\PHPUnit\UsesSandbox;
use CardSandbox\SandboxClient;
use CardSandbox\SandboxClientException;
use CardSandbox\SandboxConnectionException;
use CardSandbox\Tests\Support\Eventually;
use PHPUnit\Framework\TestCase;

/** Every method of the client against the run's sandbox, each test on a tenant of its own. */
final class SandboxClientTest extends TestCase
{
    use UsesSandbox;

    private const IDENTITY = [
        'first_name' => 'Awa',
        'last_name' => 'Diop',
        'address' => '12 Rue Carnot, Dakar',
        'phone' => '+221770000001',
        'email' => 'awa@example.com',
        'id_no' => '1234567890123',
        'selfie_image' => 'https://example.com/s.jpg',
        'id_image' => 'https://example.com/f.jpg',
    ];

    public function testHealthAnswersOk(): void
    {
        self::assertSame(['status' => 'ok'], $this->sandbox->health());
    }

    public function testTakesTheOriginOrTheV1Base(): void
    {
        $client = new SandboxClient($this->sandbox->url . '/v1/', 'x');
        self::assertSame($this->sandbox->url, $client->url);
        self::assertSame($this->sandbox->url . '/v1', $client->baseUrl);
    }

    public function testResetEmptiesTheTenantAndMayPutItsClockInManualMode(): void
    {
        $this->cardUser();
        $this->sandbox->setClockMode('real');
        $answer = $this->sandbox->reset('manual');
        self::assertStringStartsWith('ten_', $answer['tenant']);
        self::assertSame([], $this->sandbox->v1('GET', '/card-users')['data'][0]['data']);
        self::assertSame('manual', $this->sandbox->clock()['mode']);
    }

    public function testAdvancesTheClockByAStringMillisecondsOrAnInterval(): void
    {
        $start = $this->sandbox->clock()['now_ms'];
        $this->sandbox->advanceClock('15m');
        $this->sandbox->advanceClock(500);
        $moved = $this->sandbox->advanceClock(new \DateInterval('PT1H30M'));
        self::assertSame($start + (15 * 60 + 90 * 60) * 1000 + 500, $moved['now_ms']);
        self::assertSame($moved['now'], $this->sandbox->clock()['now']);
    }

    public function testSetsTheClockModeAndTheClockToAnInstant(): void
    {
        self::assertSame('real', $this->sandbox->setClockMode('real')['mode']);
        $later = new \DateTimeImmutable('2030-06-01T12:00:00+02:00');
        $set = $this->sandbox->setClock($later);
        self::assertSame(['manual', '2030-06-01T10:00:00.000Z'], [$set['mode'], $set['now']]);

        $error = $this->failure(fn () => $this->sandbox->setClock('2029-01-01T00:00:00Z'));
        self::assertSame(422, $error->getStatus());
        self::assertArrayHasKey('now', $error->getErrors());
    }

    public function testRunsUntilIdleAndUntilAnInstant(): void
    {
        $user = $this->cardUser();
        $now = new \DateTimeImmutable($this->sandbox->clock()['now']);
        $stopped = $this->sandbox->runUntilIdle($now->modify('+1 second'));
        self::assertSame([], $stopped['fired']);
        self::assertSame($now->modify('+1 second')->format('Y-m-d\TH:i:s.v\Z'), $stopped['now']);

        $ran = $this->sandbox->runUntilIdle();
        self::assertSame([[$user, 'card_user', 'passed']], array_map(
            static fn (array $job): array => [$job['reference'], $job['resource'], $job['to'] ?? null],
            $ran['fired'],
        ));
    }

    public function testReadsSetsAndRestoresTheDelays(): void
    {
        self::assertSame(5000, $this->sandbox->delays()['card_issuing']);
        $set = $this->sandbox->setDelays(['card_issuing' => '500ms', 'transaction_settlement' => new \DateInterval('PT1M')]);
        self::assertSame([500, 60000], [$set['card_issuing'], $set['transaction_settlement']]);
        self::assertSame(5000, $this->sandbox->setDelays([])['card_issuing']);
    }

    public function testListsTheJobs(): void
    {
        $user = $this->cardUser();
        self::assertSame([$user], array_column($this->sandbox->jobs(), 'reference'));
    }

    public function testMovesAResourceAndRefusesAnIllegalMoveWith409(): void
    {
        $user = $this->cardUser();
        $moved = $this->sandbox->transition('card-users', $user, 'passed');
        self::assertSame(['pending', 'passed'], [$moved['from'], $moved['to']]);

        $error = $this->failure(fn () => $this->sandbox->transition('card-users', $user, 'pending'));
        self::assertSame(409, $error->getStatus());
        self::assertSame('passed', $error->getBody()['from']);
        self::assertSame([], $error->getBody()['allowed']);
        self::assertSame(['POST', "/__sandbox/card-users/{$user}/transition"], [$error->getMethod(), $error->getPath()]);
    }

    public function testAnUnknownReferenceIs404(): void
    {
        $error = $this->failure(fn () => $this->sandbox->transition('cards', 'no-such-card', 'issued'));
        self::assertSame(404, $error->getStatus());
        self::assertSame(404, $error->getBody()['statusCode']);
        self::assertStringContainsString('answered 404', $error->getMessage());
    }

    public function testFundsAndWithdrawsFromACardAndRefusesAWithdrawalItCannotCoverWith422(): void
    {
        $card = $this->issuedCard();
        self::assertSame(10000, $this->sandbox->fundCard($card, 10000)['balance']);
        $withdrawn = $this->sandbox->withdrawCard($card, 4000);
        self::assertSame([6000, 'withdraw'], [$withdrawn['balance'], $withdrawn['transaction']['kind']]);

        $error = $this->failure(fn () => $this->sandbox->withdrawCard($card, 1_000_000));
        self::assertSame(422, $error->getStatus());
        self::assertArrayHasKey('amount', $error->getErrors());
    }

    public function testReadsAndFundsTheBusiness(): void
    {
        $before = $this->sandbox->business()['float_balance'];
        self::assertSame($before + 1000, $this->sandbox->fundBusiness(1000)['float_balance']);
    }

    public function testOpensADispute(): void
    {
        $card = $this->issuedCard();
        $slug = $this->sandbox->fundCard($card, 5000)['transaction']['slug'];
        $dispute = $this->sandbox->createDispute($slug, 'duplicate');
        self::assertSame([$slug, 'duplicate', 'open'], [$dispute['transaction_slug'], $dispute['reason'], $dispute['status']]);
    }

    public function testGivesAWalletCode(): void
    {
        $code = $this->sandbox->walletCode('+221770000002', 'orange-money-sn');
        self::assertSame(['+221770000002', 'orange-money-sn'], [$code['phone'], $code['network']]);
        self::assertMatchesRegularExpression('/^\d+$/', $code['code']);
    }

    public function testSetsTheWebhookEndpointListsEventsAndReplaysOne(): void
    {
        self::assertSame('none', $this->sandbox->webhook()['url_source']);
        $user = $this->cardUser();
        $this->sandbox->transition('card-users', $user, 'passed');
        // sent (skipped: no endpoint) just after the answer
        $skipped = Eventually::value(fn () => $this->sandbox->webhooks('skipped'), fn (array $page) => $page['data'] !== []);
        self::assertSame(['card_user_verification.successful'], array_column($skipped['data'], 'type'));
        self::assertSame(1, $skipped['meta']['total']);
        self::assertSame(0, $this->sandbox->webhooks('delivered')['meta']['total']);

        $set = $this->sandbox->setWebhook('http://127.0.0.1:9/hooks', 'a-secret-of-its-own');
        self::assertSame(['tenant', 'tenant'], [$set['url_source'], $set['secret_source']]);
        $replayed = $this->sandbox->replayWebhook($skipped['data'][0]['id']);
        self::assertSame($skipped['data'][0]['id'], $replayed['id']);
        $back = $this->sandbox->setWebhook(null);
        self::assertSame(['none', 'token'], [$back['url_source'], $back['secret_source']]);
    }

    public function testReadsFiltersAndClearsTheRequestJournal(): void
    {
        $this->cardUser();
        $this->sandbox->v1('GET', '/cards');
        $posts = $this->sandbox->requests(method: 'POST', path: '/v1/card-users/*', status: '2xx');
        self::assertSame(1, $posts['meta']['total']);
        self::assertSame('+221770000001', $posts['data'][0]['request']['body']['phone']);
        self::assertSame(1, $this->sandbox->requests(perPage: 1, page: 2)['meta']['current_page'] - 1);

        $this->sandbox->clearRequests();
        self::assertSame(0, $this->sandbox->requests(path: '/v1/*')['meta']['total']);
    }

    public function testAddsListsAndRemovesAScenario(): void
    {
        $inForce = $this->sandbox->addScenario([
            'name' => 'cards-down',
            'rules' => [['match' => ['method' => 'GET', 'path' => '/v1/cards'], 'respond' => ['status' => 503]]],
        ]);
        self::assertSame(['cards-down'], array_column($inForce, 'name'));
        self::assertSame(['cards-down'], array_column($this->sandbox->scenarios(), 'name'));
        self::assertSame(503, $this->failure(fn () => $this->sandbox->v1('GET', '/cards'))->getStatus());

        self::assertSame([], $this->sandbox->removeScenario('cards-down'));
        self::assertSame(404, $this->failure(fn () => $this->sandbox->removeScenario('cards-down'))->getStatus());
    }

    public function testTakesRestoresListsAndDeletesASnapshot(): void
    {
        $user = $this->cardUser();
        $taken = $this->sandbox->snapshot('one-user');
        self::assertSame('one-user', $taken['name']);
        $this->sandbox->reset();
        self::assertSame('one-user', $this->sandbox->restore('one-user')['name']);
        self::assertSame($user, $this->sandbox->v1('GET', "/card-users/{$user}")['data']['cardUser']['reference']);
        self::assertSame(['one-user'], array_column($this->sandbox->snapshots(), 'name'));
        self::assertSame([], $this->sandbox->deleteSnapshot('one-user'));
    }

    public function testListsAndAppliesFixturesByNameAndInline(): void
    {
        self::assertContains('verified-user-funded-card', array_column($this->sandbox->fixtures(), 'name'));
        $applied = $this->sandbox->applyFixture('verified-user-funded-card');
        self::assertGreaterThan(0, $applied['steps']);
        self::assertSame(240000, $this->sandbox->v1('GET', '/cards')['data'][0]['balance']);

        $inline = $this->sandbox->applyFixture([
            'name' => 'one-more-user',
            'steps' => [['call' => 'POST /v1/card-users/create', 'body' => ['phone' => '+221770000009']]],
        ]);
        self::assertSame(['one-more-user', 1], [$inline['name'], $inline['steps']]);
    }

    public function testCallsV1WithAndWithoutABody(): void
    {
        $created = $this->sandbox->v1('POST', 'card-users/create', ['phone' => '+221770000003']);
        self::assertSame('+221770000003', $created['userCard']['phone']);
        self::assertSame(200, $this->sandbox->v1('get', '/cards')['statusCode']);
    }

    public function testNoAnswerIsAConnectionError(): void
    {
        $this->expectException(SandboxConnectionException::class);
        (new SandboxClient('http://127.0.0.1:9', 'x', 2.0))->health();
    }

    public function testPrintsTheTokenMasked(): void
    {
        $printed = print_r(new SandboxClient('http://127.0.0.1:9', 'a-long-secret-token'), true);
        self::assertStringNotContainsString('a-long-secret-token', $printed);
        self::assertStringContainsString('***************oken', $printed);
    }

    public function testCallsEveryMethodOfTheClientHere(): void
    {
        $source = (string) file_get_contents(__FILE__);
        foreach ((new \ReflectionClass(SandboxClient::class))->getMethods(\ReflectionMethod::IS_PUBLIC) as $method) {
            if (!str_starts_with($method->getName(), '__')) {
                self::assertStringContainsString('->' . $method->getName() . '(', $source);
            }
        }
    }

    /** A full-data card user (verified by itself after 3 s of its clock), its reference. */
    private function cardUser(): string
    {
        return $this->sandbox->v1('POST', '/card-users/create', self::IDENTITY)['data']['userCard']['reference'];
    }

    /** A verified user's issued card, its reference. */
    private function issuedCard(): string
    {
        $user = $this->cardUser();
        $this->sandbox->transition('card-users', $user, 'passed');
        $card = $this->sandbox->v1('POST', '/cards/create', [
            'card_user_reference' => $user,
            'card_brand' => 'visa',
            'card_type' => 'virtual',
        ])['data']['card']['reference'];
        $this->sandbox->transition('cards', $card, 'issued');
        return $card;
    }

    /** The SandboxClientException `$call` throws. */
    private function failure(callable $call): SandboxClientException
    {
        try {
            $call();
        } catch (SandboxClientException $error) {
            return $error;
        }
        self::fail('expected a SandboxClientException');
    }
}
