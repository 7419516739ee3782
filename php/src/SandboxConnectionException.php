<?php

declare(strict_types=1);

namespace CardSandbox;

/**
 * No answer came: the sandbox could not be reached (nothing listening, a timeout, a dropped
 * connection). An answer, whatever its status, is a SandboxClientException instead.
 */
final class SandboxConnectionException extends \RuntimeException
{
}
