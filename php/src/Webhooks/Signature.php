<?php

declare(strict_types=1);

namespace CardSandbox\Webhooks;

/**
 * `x-alal-signature`: the hex HMAC-SHA512 of the body's exact bytes, keyed with the tenant's
 * secret (the bearer token unless the sandbox or the tenant sets another), as the sandbox signs
 * its webhooks and the real service's libraries check them.
 *
 * ```php
 * // in your webhook handler
 * if (!Signature::verify(file_get_contents('php://input'), $_SERVER['HTTP_X_ALAL_SIGNATURE'] ?? null, $apiKey)) {
 *     http_response_code(401);
 *     return;
 * }
 * ```
 */
final class Signature
{
    public const HEADER = 'x-alal-signature';

    /** The signature of `$rawBody`: 128 lowercase hex digits. */
    public static function sign(string $rawBody, string $secret): string
    {
        return hash_hmac('sha512', $rawBody, $secret);
    }

    /**
     * Whether `$header` signs `$rawBody` with `$secret`, compared in constant time. Give the body's
     * exact bytes, as received: a decoded and re-encoded body may no longer match.
     *
     * @param string|list<string>|null $header the header's value (a list, as some frameworks give headers, is refused)
     */
    public static function verify(string $rawBody, string|array|null $header, string $secret): bool
    {
        if (!is_string($header) || preg_match('/^[0-9a-f]{128}$/i', $header) !== 1) {
            return false;
        }
        return hash_equals(self::sign($rawBody, $secret), strtolower($header));
    }

    /**
     * A payload signed as the sandbox signs a webhook: the body to post (an array is encoded as
     * JavaScript's JSON.stringify writes it), its signature and the headers to send, for a test
     * of your own handler.
     *
     * ```php
     * $signed = Signature::signPayload(['event' => 'card_creation.successful', 'data' => $card], $apiKey);
     * // POST $signed['body'] with $signed['headers'] to your handler
     * ```
     *
     * @param array<mixed>|string $payload
     *
     * @return array{body: string, signature: string, headers: array<string, string>}
     */
    public static function signPayload(array|string $payload, string $secret): array
    {
        $body = is_string($payload)
            ? $payload
            : json_encode($payload, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_LINE_TERMINATORS);
        $signature = self::sign($body, $secret);
        return [
            'body' => $body,
            'signature' => $signature,
            'headers' => ['content-type' => 'application/json', self::HEADER => $signature],
        ];
    }
}
