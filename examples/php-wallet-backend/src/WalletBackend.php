<?php

declare(strict_types=1);

namespace WalletBackend;

/**
 * A client team's backend, as small as it gets: it registers card users, orders and funds their
 * cards and sends money from a card to a mobile wallet, through the card-issuing API (the real
 * service in production, card-sandbox in tests), and learns from the API's webhooks
 * (WebhookHandler) when a user is verified and a card issued. Nothing here knows the sandbox.
 */
final class WalletBackend
{
    private readonly CardApi $api;
    private readonly Store $store;

    public function __construct(Config $config)
    {
        $this->api = new CardApi($config);
        $this->store = new Store($config->storeFile);
    }

    /**
     * Registers a card user for the hosted verification widget: pending until the verification
     * webhook says otherwise. The reference.
     */
    public function registerCardUser(string $phone, ?string $email = null): string
    {
        $answer = $this->api->post('/card-users/create', array_filter(['phone' => $phone, 'email' => $email]));
        // the widget flow answers userCard beside message; the full-data flow under data
        $reference = ($answer['userCard'] ?? $answer['data']['userCard'])['reference'];
        $this->store->put('users', $reference, ['status' => 'pending']);
        return $reference;
    }

    /**
     * Orders a virtual visa card for a verified user: `issuing` until the card webhook comes.
     *
     * @return array{reference: string, status: string}
     */
    public function issueCard(string $cardUserReference): array
    {
        $user = $this->store->find('users', $cardUserReference);
        if (($user['status'] ?? null) !== 'passed') {
            throw new \DomainException("card user {$cardUserReference} is not verified");
        }
        $answer = $this->api->post('/cards/create', [
            'card_user_reference' => $cardUserReference,
            'card_brand' => 'visa',
            'card_type' => 'virtual',
        ]);
        // the API's examples put the card under data; its schema beside message
        $card = $answer['data']['card'] ?? $answer['card'];
        $this->store->put('cards', $card['reference'], ['status' => $card['status']]);
        return ['reference' => $card['reference'], 'status' => $card['status']];
    }

    /** Tops the card up from the business float: a recharge, pending until it settles. Its slug. */
    public function topUpCard(string $cardReference, int $amount): string
    {
        $answer = $this->api->post('/transactions/create', [
            'action' => 'recharge',
            'card_reference' => $cardReference,
            'amount' => $amount,
        ]);
        return $this->transferStarted($answer);
    }

    /** Sends money from a card to a mobile wallet, pending until it settles. Its slug. */
    public function sendToWallet(string $cardReference, int $amount, string $phone, string $network): string
    {
        $answer = $this->api->post('/transactions/create/card-to-wallet', [
            'amount' => $amount,
            'card_reference' => $cardReference,
            'phone' => $phone,
            'network' => $network,
        ]);
        return $this->transferStarted($answer);
    }

    /** Where a transfer stands now (`pending`, `success`, `failed`), asked of the API and kept. */
    public function transferStatus(string $slug): string
    {
        $answer = $this->api->get('/transactions/' . rawurlencode($slug));
        // the show answer puts the transaction beside message; its schema under data
        $status = ($answer['transaction'] ?? $answer['data']['transaction'])['status'];
        $this->store->put('transfers', $slug, ['status' => $status]);
        return $status;
    }

    /** The card's balance, asked of the API. */
    public function balance(string $cardReference): int
    {
        $answer = $this->api->get('/cards/' . rawurlencode($cardReference));
        return ($answer['data']['card'] ?? $answer['card'])['balance'];
    }

    /**
     * What the backend knows of a card user: its verification status, from the webhook.
     *
     * @return array<string, mixed>|null
     */
    public function cardUser(string $reference): ?array
    {
        return $this->store->find('users', $reference);
    }

    /**
     * What the backend knows of a card: its status and the last 4 digits of its number.
     *
     * @return array<string, mixed>|null
     */
    public function card(string $reference): ?array
    {
        return $this->store->find('cards', $reference);
    }

    /** @param array<string, mixed> $answer */
    private function transferStarted(array $answer): string
    {
        $transaction = $answer['data']['transaction'] ?? $answer['transaction'];
        $this->store->put('transfers', $transaction['slug'], ['status' => $transaction['status'], 'amount' => $transaction['amount']]);
        return $transaction['slug'];
    }
}
