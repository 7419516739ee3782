<?php

declare(strict_types=1);

namespace CardSandbox;

/** The sandbox's masking rule for what the kit prints: a token never in clear. */
final class Masking
{
    /** Its last 4 characters when it is longer than 8, else nothing: `******oken`. */
    public static function token(string $token): string
    {
        $visible = strlen($token) > 8 ? substr($token, -4) : '';
        return str_repeat('*', strlen($token) - strlen($visible)) . $visible;
    }
}
