<?php

declare(strict_types=1);

namespace CardSandbox;

/** The sandbox's addresses: what the kit takes (its origin or its `/v1` base) and gives. */
final class SandboxUrl
{
    /** Removes a trailing slash and a trailing `/v1`: the origin the control plane lives under. */
    public static function origin(string $url): string
    {
        return (string) preg_replace('~/v1$~', '', rtrim($url, '/'));
    }
}
