<?php

declare(strict_types=1);

namespace CardSandbox\PHPUnit;

use CardSandbox\SandboxClient;
use CardSandbox\TestRun;
use CardSandbox\Webhooks\WebhookReceiver;
use PHPUnit\Framework\Attributes\After;
use PHPUnit\Framework\Attributes\Before;

/**
 * For a PHPUnit test case: each test gets a tenant of its own on the run's sandbox, reset when
 * the test starts, as `$this->sandbox`. Written with what PHPUnit 9.6, 10 and 11 share: its
 * set-up and tear-down carry both the `@before`/`@after` annotations (9.6 reads them) and the
 * `#[Before]`/`#[After]` attributes (10 and 11 read those first); they run before your `setUp()`
 * and after your `tearDown()`.
 *
 * ```php
 * final class CardsTest extends TestCase
 * {
 *     use UsesSandbox;
 *
 *     public function testIssuesACard(): void
 *     {
 *         $this->sandbox->advanceClock('5s');
 *     }
 * }
 * ```
 */
trait UsesSandbox
{
    /** A client bound to this test's own tenant (its token: `$this->sandbox->token`). */
    protected SandboxClient $sandbox;

    /** @var list<WebhookReceiver> the receivers this test started, closed after it */
    private array $cardSandboxReceivers = [];

    /** @var array<string, string|false> the variables sandboxEnv() set, and what they were before */
    private array $cardSandboxEnvBefore = [];

    /**
     * @before
     */
    #[Before]
    protected function setUpCardSandbox(): void
    {
        $this->sandbox = new SandboxClient(TestRun::url(), TestRun::tokenFor($this->cardSandboxTestName()));
        // a sandbox the run attached to may give new tenants a real clock
        $this->sandbox->reset(TestRun::attached() ? 'manual' : null);
    }

    /**
     * @after
     */
    #[After]
    protected function tearDownCardSandbox(): void
    {
        foreach ($this->cardSandboxReceivers as $receiver) {
            $receiver->close();
        }
        $this->cardSandboxReceivers = [];
        foreach ($this->cardSandboxEnvBefore as $name => $value) {
            putenv($value === false ? $name : "{$name}={$value}");
            if ($value === false) {
                unset($_ENV[$name], $_SERVER[$name]);
            } else {
                $_ENV[$name] = $_SERVER[$name] = $value;
            }
        }
        $this->cardSandboxEnvBefore = [];
    }

    /**
     * A webhook receiver registered as this test's tenant's webhook URL, checking each signature;
     * closed after the test (the tenant's URL taken back off).
     *
     * @param string|null $secret         what signs the tenant's webhooks (default: its token)
     * @param string|null $host           the address to bind (`0.0.0.0` when the sandbox runs in a container;
     *                                    default: CARD_SANDBOX_WEBHOOK_BIND, else 127.0.0.1)
     * @param string|null $advertisedHost the host in the URL given to the sandbox (`host.docker.internal`;
     *                                    default: CARD_SANDBOX_WEBHOOK_HOST, else the bound address)
     */
    protected function webhookReceiver(?string $secret = null, ?string $host = null, ?string $advertisedHost = null): WebhookReceiver
    {
        $receiver = WebhookReceiver::start($this->sandbox, $secret, $host, $advertisedHost);
        $this->cardSandboxReceivers[] = $receiver;
        return $receiver;
    }

    /**
     * Sets, until the test ends, what the code under test needs to reach this test's tenant:
     * `ALAL_BASE_URL` (the `/v1` base, without a trailing slash: alal-php's paths start with one),
     * `ALAL_API_KEY` (the token), `CARD_SANDBOX_URL` and `CARD_SANDBOX_TOKEN`.
     *
     * @return array{ALAL_BASE_URL: string, ALAL_API_KEY: string, CARD_SANDBOX_URL: string, CARD_SANDBOX_TOKEN: string}
     */
    protected function sandboxEnv(): array
    {
        $settings = [
            'ALAL_BASE_URL' => $this->sandbox->baseUrl,
            'ALAL_API_KEY' => $this->sandbox->token,
            'CARD_SANDBOX_URL' => $this->sandbox->url,
            'CARD_SANDBOX_TOKEN' => $this->sandbox->token,
        ];
        foreach ($settings as $name => $value) {
            if (!array_key_exists($name, $this->cardSandboxEnvBefore)) {
                $this->cardSandboxEnvBefore[$name] = getenv($name);
            }
            putenv("{$name}={$value}");
            $_ENV[$name] = $_SERVER[$name] = $value;
        }
        return $settings;
    }

    /** `Class::method`, and `#<data set>` for a test with a data provider. */
    private function cardSandboxTestName(): string
    {
        // PHPUnit 10 and 11 name it name(); 9.6 getName(false)
        $method = method_exists($this, 'name') ? $this->name() : $this->getName(false);
        $data = method_exists($this, 'dataName') ? (string) $this->dataName() : '';
        return static::class . '::' . $method . ($data === '' ? '' : '#' . $data);
    }
}
