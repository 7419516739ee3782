<?php

declare(strict_types=1);

namespace WalletBackend;

/**
 * `POST /webhooks/alal`: checks `x-alal-signature` (the hex HMAC-SHA512 of the raw body, keyed
 * with the API key) before it records what the event says about a card user or a card.
 */
final class WebhookHandler
{
    private readonly Store $store;

    public function __construct(private readonly Config $config)
    {
        $this->store = new Store($config->storeFile);
    }

    /** The status to answer: 401 unless signed with the API key, else 200. */
    public function handle(string $rawBody, ?string $signature): int
    {
        $expected = hash_hmac('sha512', $rawBody, $this->config->apiKey);
        if ($signature === null || !hash_equals($expected, strtolower($signature))) {
            return 401;
        }
        $payload = json_decode($rawBody, true);
        if (!is_array($payload) || !is_string($payload['event'] ?? null) || !is_array($payload['data'] ?? null)) {
            return 400;
        }
        $this->record($payload['event'], $payload['data']);
        return 200;
    }

    /** @param array<string, mixed> $data */
    private function record(string $event, array $data): void
    {
        if (str_starts_with($event, 'card_user_verification.')) {
            $this->store->put('users', $data['reference'], ['status' => $data['status']]);
        } elseif (str_starts_with($event, 'card_creation.')) {
            // a card number is not kept whole, nor its cvv2
            $this->store->put('cards', $data['reference'], [
                'status' => $data['status'] ?? (str_ends_with($event, '.failed') ? 'failed' : 'issued'),
                'last4' => isset($data['card_number']) ? substr((string) $data['card_number'], -4) : null,
            ]);
        }
    }
}
