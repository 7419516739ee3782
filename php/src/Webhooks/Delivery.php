<?php

declare(strict_types=1);

namespace CardSandbox\Webhooks;

/**
 * A request the webhook receiver got. A verified one was signed with the tenant's secret: an
 * event the sandbox sent. An unverified one (answered 401) is as it came: its `event` is `''`
 * and its `data` null when the body is not an event's JSON.
 */
final class Delivery
{
    /**
     * @param string                $event    the event type: `card_creation.successful`
     * @param mixed                 $data     the event's `data`
     * @param mixed                 $body     the whole decoded body: `['event' => …, 'data' => …]`
     * @param string                $rawBody  the body's exact bytes
     * @param array<string, string> $headers  the request's headers, lowercased (`x-alal-event-id`, `x-alal-delivery-attempt`, …)
     * @param bool                  $verified its signature matched the secret
     */
    public function __construct(
        public readonly string $event,
        public readonly mixed $data,
        public readonly mixed $body,
        public readonly string $rawBody,
        public readonly array $headers,
        public readonly bool $verified,
    ) {
    }

    /**
     * @param array<string, string> $headers
     */
    public static function fromRequest(string $rawBody, array $headers, bool $verified): self
    {
        $body = json_decode($rawBody, true);
        $event = is_array($body) && is_string($body['event'] ?? null) ? $body['event'] : '';
        $data = is_array($body) ? ($body['data'] ?? null) : null;
        return new self($event, $data, $body, $rawBody, $headers, $verified);
    }
}
