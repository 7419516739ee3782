<?php

declare(strict_types=1);

namespace CardSandbox\Tests\PHPUnit;

use CardSandbox\PHPUnit\UsesSandbox;
use CardSandbox\SandboxConnectionException;
use CardSandbox\SandboxClient;
use CardSandbox\TestRun;
use PHPUnit\Framework\TestCase;

final class UsesSandboxTest extends TestCase
{
    use UsesSandbox;

    private string $tokenSeenBySetUp = '';

    protected function setUp(): void
    {
        // the kit's set-up ran first
        $this->tokenSeenBySetUp = $this->sandbox->token;
    }

    public function testGivesEachTestATenantOfItsOwn(): void
    {
        $this->sandbox->v1('POST', '/card-users/create', ['phone' => '+221770000001']);
        // the tenant the test below gets: it sees nothing of this one's
        $neighbour = new SandboxClient(TestRun::url(), TestRun::tokenFor(self::class . '::testResetsTheTenantWhenTheTestStarts'));
        self::assertNotSame($this->sandbox->token, $neighbour->token);
        self::assertSame([], $neighbour->v1('GET', '/card-users')['data'][0]['data']);
        self::assertCount(1, $this->sandbox->v1('GET', '/card-users')['data'][0]['data']);
    }

    /**
     * @dataProvider dataSets
     */
    public function testNamesTheTenantAfterTheTestAndItsDataSet(string $set): void
    {
        self::assertSame(TestRun::tokenFor(self::class . '::testNamesTheTenantAfterTheTestAndItsDataSet#' . $set), $this->sandbox->token);
    }

    /** @return array<string, array{string}> */
    public static function dataSets(): array
    {
        return ['one' => ['one'], 'another' => ['another']];
    }

    public function testTokensDifferByTestAndDataSet(): void
    {
        $tokens = [
            TestRun::tokenFor('A::testX'),
            TestRun::tokenFor('B::testX'),
            TestRun::tokenFor('A::testX#one'),
        ];
        self::assertCount(3, array_unique($tokens));
        self::assertSame(TestRun::tokenFor('A::testX'), $tokens[0], 'the same test, the same tenant');
    }

    public function testResetsTheTenantWhenTheTestStarts(): void
    {
        $token = $this->sandbox->token;
        $this->sandbox->v1('POST', '/card-users/create', ['phone' => '+221770000001']);
        $this->sandbox->advanceClock('1h');

        $this->setUpCardSandbox(); // as it runs when this test starts

        self::assertSame($token, $this->sandbox->token);
        self::assertSame([], $this->sandbox->v1('GET', '/card-users')['data'][0]['data']);
        self::assertSame([], $this->sandbox->jobs());
        self::assertSame($token, $this->tokenSeenBySetUp);
    }

    public function testCarriesTheAnnotationsOfPhpunit9AndTheAttributesOf10And11(): void
    {
        foreach (['setUpCardSandbox' => 'before', 'tearDownCardSandbox' => 'after'] as $method => $hook) {
            $reflection = new \ReflectionMethod(self::class, $method);
            self::assertStringContainsString("@{$hook}\n", (string) $reflection->getDocComment());
            $attributes = array_map(static fn (\ReflectionAttribute $attribute): string => $attribute->getName(), $reflection->getAttributes());
            self::assertSame(['PHPUnit\\Framework\\Attributes\\' . ucfirst($hook)], $attributes);
        }
    }

    public function testSetsTheVariablesOfTheCodeUnderTestUntilTheTestEnds(): void
    {
        putenv('ALAL_API_KEY=the-one-before');
        putenv('CARD_SANDBOX_TOKEN');
        $settings = $this->sandboxEnv();
        self::assertSame($this->sandbox->baseUrl, getenv('ALAL_BASE_URL'));
        self::assertSame($this->sandbox->token, getenv('ALAL_API_KEY'));
        self::assertSame($this->sandbox->token, $_ENV['CARD_SANDBOX_TOKEN']);
        self::assertSame($this->sandbox->url, $settings['CARD_SANDBOX_URL']);

        $this->tearDownCardSandbox(); // as it runs when this test ends

        self::assertSame('the-one-before', getenv('ALAL_API_KEY'));
        self::assertFalse(getenv('CARD_SANDBOX_TOKEN'));
        self::assertArrayNotHasKey('CARD_SANDBOX_TOKEN', $_ENV);
        putenv('ALAL_API_KEY');
    }

    public function testClosesTheTestsWebhookReceiversWhenItEnds(): void
    {
        $receiver = $this->webhookReceiver();
        self::assertSame($receiver->url, $this->sandbox->webhook()['url']);

        $this->tearDownCardSandbox();

        self::assertSame('none', $this->sandbox->webhook()['url_source']);
        $this->expectException(SandboxConnectionException::class);
        (new SandboxClient($receiver->url, 'x', 2.0))->health();
    }
}
