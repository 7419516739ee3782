<?php

declare(strict_types=1);

namespace CardSandbox;

/**
 * A client of the sandbox's control plane for one tenant (one bearer token), with the method
 * set of the Node client (`card-sandbox/client`). Each method returns the `data` of the answer
 * (lists: `['data' => …, 'meta' => …]`); anything but a 2xx throws a SandboxClientException
 * with the status and the decoded body. It needs ext-curl and ext-json, nothing else.
 *
 * ```php
 * $sandbox = new SandboxClient('http://127.0.0.1:4010', 'my-suite');
 * $sandbox->reset();
 * $sandbox->advanceClock('5s');
 * ```
 *
 * @phpstan-type Clock array{mode: string, now: string, now_ms: int, speed: int|float}
 * @phpstan-type PageMeta array{current_page: int, from: int|null, last_page: int, per_page: int, to: int|null, total: int}
 * @phpstan-type Transaction array{slug: string, card_reference: string, reference: string, status: string, kind: string, merchant: string|false|null, amount: int, created_at: string}
 * @phpstan-type WebhookEndpoint array{url: string|null, secret: string, url_source: string, secret_source: string}
 * @phpstan-type WebhookAttempt array{attempt: int, at: string, url: string, request_headers: array<string, string>|null, status_code: int|null, latency_ms: int, response: string|null, error: string|null}
 * @phpstan-type WebhookEvent array{id: string, type: string, extension: bool, status: string, created_at: string, next_attempt_at: string|null, body: string, attempts: list<WebhookAttempt>}
 * @phpstan-type JournalEntry array{id: string, at: string, wall_at: string, method: string, path: string, query: string, status: int, latency_ms: int, request: array{headers: array<string, string>, body: mixed}, response: array{body: mixed}}
 * @phpstan-type ScenarioInForce array{name: string, source: string, description: string|null, delays: array<string, int>, rules: int}
 * @phpstan-type SnapshotInfo array{name: string, taken_at: string, rows: int}
 * @phpstan-type FiredJob array{at: string, resource: string, reference: string, from?: string, to?: string, meaning?: string, what?: string}
 */
final class SandboxClient
{
    /** The sandbox's origin, without `/v1`: `http://127.0.0.1:4010`. */
    public readonly string $url;

    /** The `/v1` base a client's `base_url` should be: `http://127.0.0.1:4010/v1`. */
    public readonly string $baseUrl;

    /** The bearer token: one token is one tenant. */
    public readonly string $token;

    /** One handle for every call, so the connection is kept alive between them. */
    private ?\CurlHandle $curl = null;

    /** A sandbox on this machine: no proxy of the environment (http_proxy) would reach it. */
    private readonly bool $loopback;

    /**
     * @param string $baseUrl the sandbox's origin (`http://127.0.0.1:4010`) or its `/v1` base: both work
     * @param string $token   the bearer token: one token is one tenant
     * @param float  $timeout seconds to wait for an answer
     */
    public function __construct(string $baseUrl, string $token, private readonly float $timeout = 30.0)
    {
        $this->url = SandboxUrl::origin($baseUrl);
        $this->baseUrl = $this->url . '/v1';
        $this->token = $token;
        $host = trim((string) parse_url($this->url, PHP_URL_HOST), '[]');
        $this->loopback = $host === 'localhost' || $host === '::1' || str_starts_with($host, '127.');
    }

    /**
     * `GET /__sandbox/health` (no token needed).
     *
     * @return array{status: string}
     */
    public function health(): array
    {
        return $this->call('GET', '/__sandbox/health');
    }

    /**
     * Deletes everything of the tenant; clock, delays, float and scenarios start over (the token,
     * the business name and the webhook endpoint stay). `$clock = 'manual'` then puts its clock in
     * that mode: a reset clock takes the sandbox's default mode, and a sandbox someone else
     * started may default to real clocks.
     *
     * @param string|null $clock `manual` or `real`
     *
     * @return array{tenant: string}
     */
    public function reset(?string $clock = null): array
    {
        $answer = $this->data('POST', '/reset');
        if ($clock !== null) {
            $this->setClockMode($clock);
        }
        return $answer;
    }

    /** @return Clock */
    public function clock(): array
    {
        return $this->data('GET', '/clock');
    }

    /**
     * Moves the clock and runs what fell due, in order, before it returns.
     *
     * @param string|int|\DateInterval $by `"15m"`, `"1h30m"`, milliseconds, or an interval
     *
     * @return array{mode: string, now: string, now_ms: int, speed: int|float, transitions_run: int}
     */
    public function advanceClock(string|int|\DateInterval $by): array
    {
        return $this->data('POST', '/clock/advance', ['by' => Duration::toBody($by)]);
    }

    /**
     * @param string $mode `real` or `manual`
     *
     * @return Clock
     */
    public function setClockMode(string $mode): array
    {
        return $this->data('PUT', '/clock', ['mode' => $mode]);
    }

    /**
     * Sets the clock to an instant, in manual mode, and runs what fell due on the way; an instant
     * before the clock's time is refused (422).
     *
     * @return array{mode: string, now: string, now_ms: int, speed: int|float, transitions_run: int}
     */
    public function setClock(\DateTimeInterface|string $now): array
    {
        return $this->data('PUT', '/clock', ['mode' => 'manual', 'now' => self::instant($now)]);
    }

    /**
     * Runs until idle: moves the clock to each next due job and runs it, until none is left (or
     * the next is after `$until`, where the clock then stands). Answers what fired, in order.
     *
     * @return array{mode: string, now: string, now_ms: int, speed: int|float, transitions_run: int, fired: list<FiredJob>}
     */
    public function runUntilIdle(\DateTimeInterface|string|null $until = null): array
    {
        return $this->data('POST', '/clock/run-due', $until === null ? [] : ['until' => self::instant($until)]);
    }

    /**
     * Each delay in milliseconds: `card_user_verification`, `card_issuing`, `card_link_details`,
     * `transaction_settlement`, `disburse_settlement`, `payment_outcome`.
     *
     * @return array<string, int>
     */
    public function delays(): array
    {
        return $this->data('GET', '/delays');
    }

    /**
     * Overrides some delays; `[]` restores the defaults.
     *
     * @param array<string, string|int|\DateInterval> $delays `['card_issuing' => '500ms']`
     *
     * @return array<string, int>
     */
    public function setDelays(array $delays): array
    {
        return $this->data('PUT', '/delays', array_map([Duration::class, 'toBody'], $delays));
    }

    /**
     * What is scheduled, in due order.
     *
     * @return list<array{resource: string, reference: string, action: string, due_at: string}>
     */
    public function jobs(): array
    {
        return $this->data('GET', '/jobs');
    }

    /**
     * Moves a resource along its state machine; an illegal move throws with status 409 (the body's
     * `from`, `to` and `allowed` say why).
     *
     * @param string $resource `card-users`, `cards`, `transactions` (by slug), `payments`, `disburses` or `disputes`
     * @param string $to       the state to move to: `passed`, `issued`, `success`, `won`, …
     *
     * @return array{resource: string, reference: string, from: string, to: string}
     */
    public function transition(string $resource, string $reference, string $to): array
    {
        return $this->data('POST', '/' . rawurlencode($resource) . '/' . rawurlencode($reference) . '/transition', ['to' => $to]);
    }

    /**
     * A `recharge` into the card (already `success`).
     *
     * @return array{transaction: Transaction, balance: int}
     */
    public function fundCard(string $reference, int $amount): array
    {
        return $this->data('POST', '/cards/' . rawurlencode($reference) . '/fund', ['amount' => $amount]);
    }

    /**
     * A `withdraw` out of the card (422 when short).
     *
     * @return array{transaction: Transaction, balance: int}
     */
    public function withdrawCard(string $reference, int $amount): array
    {
        return $this->data('POST', '/cards/' . rawurlencode($reference) . '/withdraw', ['amount' => $amount]);
    }

    /** @return array{business: string, float_balance: int} */
    public function business(): array
    {
        return $this->data('GET', '/business');
    }

    /** @return array{business: string, float_balance: int} */
    public function fundBusiness(int $amount): array
    {
        return $this->data('POST', '/business/fund', ['amount' => $amount]);
    }

    /**
     * Opens a dispute on one of the tenant's transactions.
     *
     * @param string $reason `duplicate`, `not_received`, `fraudulent`, `product_not_as_described`,
     *                       `service_not_as_described`, `canceled` or `other`
     *
     * @return array{reference: string, transaction_slug: string, reason: string, status: string}
     */
    public function createDispute(string $transactionSlug, string $reason): array
    {
        return $this->data('POST', '/disputes', ['transaction_slug' => $transactionSlug, 'reason' => $reason]);
    }

    /**
     * The payer's one-time orange-money code, for a wallet-to-card pull.
     *
     * @param string $network `orange-money-sn` or `orange-money-ci`
     *
     * @return array{code: string, phone: string, network: string, expires_at: string}
     */
    public function walletCode(string $phone, string $network): array
    {
        return $this->data('POST', '/wallet-codes', ['phone' => $phone, 'network' => $network]);
    }

    /**
     * Where the tenant's webhooks go and what signs them; each `_source` says whether the value is
     * the tenant's own (`tenant`) or a default (`flag`, `none`, `token`).
     *
     * @return WebhookEndpoint
     */
    public function webhook(): array
    {
        return $this->data('GET', '/webhook');
    }

    /**
     * Where the tenant's webhooks go (`null`: the `--webhook-url` default) and what signs them
     * (`null`: the default, `--webhook-secret` or else the token).
     *
     * @return WebhookEndpoint
     */
    public function setWebhook(?string $url, ?string $secret = null): array
    {
        return $this->data('PUT', '/webhook', ['url' => $url, 'secret' => $secret]);
    }

    /**
     * Webhook events, newest first, each with its delivery attempts.
     *
     * @param string|null $status `pending`, `delivered`, `failed` or `skipped`
     *
     * @return array{data: list<WebhookEvent>, meta: PageMeta}
     */
    public function webhooks(?string $status = null, ?int $page = null, ?int $perPage = null): array
    {
        return $this->page('/webhooks', ['status' => $status, 'page' => $page, 'per_page' => $perPage]);
    }

    /** @return array{id: string, status: string} */
    public function replayWebhook(string $id): array
    {
        return $this->data('POST', '/webhooks/' . rawurlencode($id) . '/replay');
    }

    /**
     * The request journal: what the tenant sent and got, newest first (`/v1` and control-plane
     * calls alike; not the journal's own reads nor a reset).
     *
     * @param string|null     $path   an exact path, or a pattern where `*` matches any characters: `/v1/cards/*`
     * @param int|string|null $status an exact status (`201`) or a class (`'4xx'`)
     *
     * @return array{data: list<JournalEntry>, meta: PageMeta}
     */
    public function requests(
        ?string $method = null,
        ?string $path = null,
        int|string|null $status = null,
        ?int $page = null,
        ?int $perPage = null,
    ): array {
        return $this->page('/requests', [
            'method' => $method,
            'path' => $path,
            'status' => $status,
            'page' => $page,
            'per_page' => $perPage,
        ]);
    }

    /** Empties the tenant's request journal. */
    public function clearRequests(): void
    {
        $this->call('DELETE', '/__sandbox/requests');
    }

    /** @return list<ScenarioInForce> */
    public function scenarios(): array
    {
        return $this->data('GET', '/scenarios');
    }

    /**
     * Adds a scenario for this tenant (replacing one of the same name) until its reset: the same
     * fields as a scenario file (`name`, `description`, `delays`, `rules`), as an array, e.g.
     * `json_decode(file_get_contents('tests/scenarios/x.json'), true)`.
     *
     * @param array{name: string, description?: string, delays?: array<string, string|int>, rules?: list<array<string, mixed>>} $scenario
     *
     * @return list<ScenarioInForce>
     */
    public function addScenario(array $scenario): array
    {
        return $this->data('POST', '/scenarios', $scenario);
    }

    /**
     * Takes one of the tenant's scenarios out of force; answers those left. A file's scenario is a
     * 409 (edit the file), an unknown name a 404 listing those in force.
     *
     * @return list<ScenarioInForce>
     */
    public function removeScenario(string $name): array
    {
        return $this->data('DELETE', '/scenarios/' . rawurlencode($name));
    }

    /**
     * Saves the tenant's whole state under `$name` (rows, clock, pending jobs, scenarios, webhook
     * endpoint), replacing a snapshot of that name; it outlives the tenant's resets.
     *
     * @return SnapshotInfo
     */
    public function snapshot(string $name): array
    {
        return $this->data('POST', '/snapshots', ['name' => $name]);
    }

    /**
     * Puts the tenant back as the snapshot holds it, its clock at the snapshot's instant.
     *
     * @return array{name: string, clock: array{mode: string, now: string}}
     */
    public function restore(string $name): array
    {
        return $this->data('POST', '/snapshots/' . rawurlencode($name) . '/restore');
    }

    /** @return list<SnapshotInfo> */
    public function snapshots(): array
    {
        return $this->data('GET', '/snapshots');
    }

    /** @return list<SnapshotInfo> the snapshots left */
    public function deleteSnapshot(string $name): array
    {
        return $this->data('DELETE', '/snapshots/' . rawurlencode($name));
    }

    /**
     * The fixtures of the sandbox's `fixtures/`: name and the first sentence of its description.
     *
     * @return list<array{name: string, description: string|null}>
     */
    public function fixtures(): array
    {
        return $this->data('GET', '/fixtures');
    }

    /**
     * Seeds the tenant with a named data set of `fixtures/` (a string) or an inline one (an
     * array), all or nothing: a step that fails leaves the tenant as it was (a 422 naming the step
     * and the field).
     *
     * @param string|array<string, mixed> $fixture
     *
     * @return array{name: string, steps: int}
     */
    public function applyFixture(string|array $fixture): array
    {
        return $this->data('POST', '/fixtures', is_string($fixture) ? ['name' => $fixture] : ['fixture' => $fixture]);
    }

    /**
     * Calls the `/v1` API as this tenant: the whole decoded body (its shape follows the quirks
     * setting). `$path` is under `/v1`: `'/cards'`, `'/transactions?card_reference=…'`.
     *
     * @param string                    $method `GET`, `POST`, …
     * @param array<mixed>|object|null  $body   sent as JSON; null sends no body
     */
    public function v1(string $method, string $path, array|object|null $body = null): mixed
    {
        return $this->call(strtoupper($method), '/v1' . (str_starts_with($path, '/') ? $path : '/' . $path), $body);
    }

    /**
     * What var_dump() and print_r() show: the token masked, as the sandbox masks it.
     *
     * @return array{url: string, baseUrl: string, token: string}
     */
    public function __debugInfo(): array
    {
        return ['url' => $this->url, 'baseUrl' => $this->baseUrl, 'token' => Masking::token($this->token)];
    }

    /**
     * A control-plane call answering the envelope: its `data`.
     *
     * @param array<mixed>|null $body
     */
    private function data(string $method, string $path, ?array $body = null): mixed
    {
        $answer = $this->call($method, '/__sandbox' . $path, $body);
        return is_array($answer) ? ($answer['data'] ?? null) : null;
    }

    /**
     * A paginated control-plane list: `['data' => …, 'meta' => …]`.
     *
     * @param array<string, string|int|null> $query
     *
     * @return array{data: list<mixed>, meta: array<string, mixed>}
     */
    private function page(string $path, array $query): array
    {
        $query = array_filter($query, static fn (string|int|null $value): bool => $value !== null);
        $answer = $this->call('GET', '/__sandbox' . $path . ($query === [] ? '' : '?' . http_build_query($query)));
        return ['data' => $answer['data'] ?? [], 'meta' => $answer['meta'] ?? []];
    }

    /**
     * One call; the decoded body of a 2xx, else a SandboxClientException.
     *
     * @param array<mixed>|object|null $body
     */
    private function call(string $method, string $path, array|object|null $body = null): mixed
    {
        // no `Expect: 100-continue` round trip before a larger body
        $headers = ['Authorization: Bearer ' . $this->token, 'Accept: application/json', 'Expect:'];
        $options = [
            CURLOPT_URL => $this->url . $path,
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_CONNECTTIMEOUT_MS => 5000,
            CURLOPT_TIMEOUT_MS => (int) ($this->timeout * 1000),
        ];
        if ($this->loopback) {
            $options[CURLOPT_PROXY] = '';
        }
        if ($body !== null) {
            $headers[] = 'Content-Type: application/json';
            $options[CURLOPT_POSTFIELDS] = self::json($body);
        }
        $options[CURLOPT_HTTPHEADER] = $headers;

        $curl = $this->curl ??= curl_init();
        curl_reset($curl);
        curl_setopt_array($curl, $options);
        $text = curl_exec($curl);
        if (!is_string($text)) {
            throw new SandboxConnectionException(sprintf('%s %s: no answer from %s (%s)', $method, $path, $this->url, curl_error($curl)));
        }
        $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        $decoded = self::decode($text);
        if ($status < 200 || $status > 299) {
            throw new SandboxClientException($method, $path, $status, $decoded);
        }
        return $decoded;
    }

    /**
     * The body as JSON, as JavaScript's JSON.stringify writes it; an empty array is `{}`, as every
     * body the sandbox takes is an object.
     *
     * @param array<mixed>|object $body
     */
    private static function json(array|object $body): string
    {
        if ($body === []) {
            return '{}';
        }
        return json_encode($body, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION);
    }

    /** Parsed JSON; the text itself when it is not JSON; null for an empty body. */
    private static function decode(string $text): mixed
    {
        if ($text === '') {
            return null;
        }
        try {
            return json_decode($text, true, 512, JSON_THROW_ON_ERROR);
        } catch (\JsonException) {
            return $text;
        }
    }

    /** An instant as the control plane takes it: ISO 8601 in UTC, to the millisecond. */
    private static function instant(\DateTimeInterface|string $instant): string
    {
        if (is_string($instant)) {
            return $instant;
        }
        return \DateTimeImmutable::createFromInterface($instant)
            ->setTimezone(new \DateTimeZone('UTC'))
            ->format('Y-m-d\TH:i:s.v\Z');
    }
}
