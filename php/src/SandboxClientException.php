<?php

declare(strict_types=1);

namespace CardSandbox;

/**
 * Thrown for every answer that is not a 2xx: the status and the decoded body. The body is the
 * sandbox's error shape (`message`, `statusCode`, and `errors` on a 422, `from`, `to`,
 * `allowed` on an illegal move), except for a scenario's `respond.body` (as the scenario wrote
 * it) and an answer that is not JSON (its text; an empty one is null).
 *
 * @phpstan-type ErrorBody array{message: string, statusCode: int, errors?: array<string, list<string>>, from?: string, to?: string, allowed?: list<string>}
 */
final class SandboxClientException extends \RuntimeException
{
    /**
     * @param mixed $body the decoded JSON body (ErrorBody for the sandbox's own errors)
     */
    public function __construct(
        private readonly string $method,
        private readonly string $path,
        private readonly int $status,
        private readonly mixed $body,
    ) {
        parent::__construct(sprintf('%s %s answered %d: %s', $method, $path, $status, self::messageOf($body)));
    }

    /** The HTTP status: 404, 409, 422, … */
    public function getStatus(): int
    {
        return $this->status;
    }

    /**
     * The decoded body: for the sandbox's own errors an array with `message` and `statusCode`.
     *
     * @return mixed ErrorBody, or what a scenario or a proxy answered
     */
    public function getBody(): mixed
    {
        return $this->body;
    }

    /**
     * Each bad field and its messages (dot-notation names: `customer.email`), on a 422 and on a
     * 404 for a reference sent in a body; empty otherwise.
     *
     * @return array<string, list<string>>
     */
    public function getErrors(): array
    {
        return is_array($this->body) && is_array($this->body['errors'] ?? null) ? $this->body['errors'] : [];
    }

    public function getMethod(): string
    {
        return $this->method;
    }

    /** The path called, under the sandbox's origin: `/__sandbox/clock`, `/v1/cards`. */
    public function getPath(): string
    {
        return $this->path;
    }

    private static function messageOf(mixed $body): string
    {
        if (is_array($body) && isset($body['message']) && is_scalar($body['message'])) {
            return (string) $body['message'];
        }
        if (is_string($body)) {
            return substr($body, 0, 200);
        }
        return (string) json_encode($body);
    }
}
