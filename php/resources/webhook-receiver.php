<?php

declare(strict_types=1);

/*
 * The router of CardSandbox\Webhooks\WebhookReceiver's built-in server. Each POST is checked
 * against the secret, written to the receiver's folder as one JSON file (written whole, then
 * renamed, so a reader never sees half of one), and answered: 401 for a bad signature, else the
 * status the test set (200 by default). CARD_SANDBOX_RECEIVER_DIR names the folder; its
 * config.json holds the secret and the status, read on every request.
 */

require_once __DIR__ . '/../src/Webhooks/Signature.php';

use CardSandbox\Webhooks\Signature;

$dir = (string) getenv('CARD_SANDBOX_RECEIVER_DIR');
/** @var array{secret: string, status: int} $config */
$config = json_decode((string) file_get_contents($dir . '/config.json'), true);

if (($_SERVER['REQUEST_METHOD'] ?? '') !== 'POST') {
    http_response_code(405);
    return true;
}
$rawBody = (string) file_get_contents('php://input');
$headers = array_change_key_case(getallheaders(), CASE_LOWER);
$verified = Signature::verify($rawBody, $headers[Signature::HEADER] ?? null, $config['secret']);

$delivery = json_encode(
    // the body as base64: its exact bytes, whatever they are
    ['raw_body' => base64_encode($rawBody), 'headers' => $headers, 'verified' => $verified],
    JSON_THROW_ON_ERROR | JSON_INVALID_UTF8_SUBSTITUTE,
);
// named by arrival: hrtime is the machine's monotonic clock, the same for the test process
$name = sprintf('%020d-%s.json', hrtime(true), bin2hex(random_bytes(4)));
file_put_contents("{$dir}/deliveries/.{$name}", $delivery);
rename("{$dir}/deliveries/.{$name}", "{$dir}/deliveries/{$name}");

http_response_code($verified ? $config['status'] : 401);
header('Content-Type: application/json');
echo '{}';
return true;
