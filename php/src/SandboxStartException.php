<?php

declare(strict_types=1);

namespace CardSandbox;

/**
 * The run's sandbox could not be had: no command to start it, a start that failed (its output is
 * in the message), or a CARD_SANDBOX_URL that cannot be used as it is set.
 */
final class SandboxStartException extends \RuntimeException
{
}
