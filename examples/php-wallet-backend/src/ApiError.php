<?php

declare(strict_types=1);

namespace WalletBackend;

/** An answer of the card API that is not a 2xx. */
final class ApiError extends \RuntimeException
{
    public function __construct(public readonly int $status, public readonly mixed $body)
    {
        parent::__construct("the card API answered {$status}");
    }
}
