<?php

declare(strict_types=1);

/*
 * The backend's HTTP side: the API's webhooks on POST /webhooks/alal. Served by PHP-FPM in
 * production; by PHP's built-in server in the tests (php -S 127.0.0.1:8080 public/index.php).
 */

require __DIR__ . '/../vendor/autoload.php';

use WalletBackend\Config;
use WalletBackend\WebhookHandler;

if ($_SERVER['REQUEST_METHOD'] !== 'POST' || parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) !== '/webhooks/alal') {
    http_response_code(404);
    return;
}
$handler = new WebhookHandler(Config::fromEnvironment());
$status = $handler->handle((string) file_get_contents('php://input'), $_SERVER['HTTP_X_ALAL_SIGNATURE'] ?? null);
http_response_code($status);
header('Content-Type: text/plain');
echo $status === 200 ? 'ok' : '';
