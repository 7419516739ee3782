<?php

declare(strict_types=1);

namespace CardSandbox\Webhooks;

/** `waitFor` saw no matching verified delivery in time; the message names what did arrive. */
final class WebhookTimeoutException extends \RuntimeException
{
}
