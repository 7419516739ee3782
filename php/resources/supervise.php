<?php

declare(strict_types=1);

/*
 * Runs PHP's built-in server for CardSandbox\Process\PhpServer and stops it when its own stdin
 * closes: the test process holds the other end of that pipe, so the server goes when the test
 * process goes, even killed with SIGKILL, which runs no PHP code.
 *
 * Usage: php supervise.php <host> <port> <docroot> <router> [<folder to remove once it has stopped>]
 */

[, $host, $port, $docroot, $router, $removeWhenDone] = $argv + [null, '', '', '', '', ''];
$address = (str_contains($host, ':') ? "[{$host}]" : $host) . ':' . $port;
$server = proc_open(
    [PHP_BINARY, '-S', $address, '-t', $docroot, $router],
    [0 => ['file', '/dev/null', 'r'], 1 => STDOUT, 2 => STDERR],
    $pipes,
);
if (!is_resource($server)) {
    fwrite(STDERR, "card-sandbox: cannot run PHP's built-in server\n");
    exit(1);
}

stream_set_blocking(STDIN, false);
while (true) {
    $read = [STDIN];
    $write = $except = null;
    if (@stream_select($read, $write, $except, 0, 200_000) > 0) {
        $chunk = fread(STDIN, 8192);
        if (($chunk === '' || $chunk === false) && feof(STDIN)) {
            break;
        }
    }
    $status = proc_get_status($server);
    if (!$status['running']) {
        // it could not listen (its message is in the output), or it was killed
        exit($status['exitcode'] > 0 ? $status['exitcode'] : 1);
    }
}

// SIGTERM, then SIGKILL: ext-pcntl, which names them, is not required
proc_terminate($server, 15);
for ($waited = 0; proc_get_status($server)['running'] && $waited < 250; $waited++) {
    usleep(20_000);
}
if (proc_get_status($server)['running']) {
    proc_terminate($server, 9);
}
proc_close($server);

// what the server wrote there (the webhook receiver's deliveries), gone with it
if ($removeWhenDone !== '' && is_dir($removeWhenDone)) {
    $files = new RecursiveIteratorIterator(
        new RecursiveDirectoryIterator($removeWhenDone, FilesystemIterator::SKIP_DOTS),
        RecursiveIteratorIterator::CHILD_FIRST,
    );
    foreach ($files as $file) {
        $file->isDir() ? @rmdir($file->getPathname()) : @unlink($file->getPathname());
    }
    @rmdir($removeWhenDone);
}
