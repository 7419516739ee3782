<?php

declare(strict_types=1);

/*
 * The kit's PHPUnit bootstrap: one sandbox for the whole run (CardSandbox\TestRun), started
 * before the first test and stopped when PHP ends. Point PHPUnit at it:
 *
 *     <phpunit bootstrap="vendor/card-sandbox/card-sandbox/bootstrap.php">
 *
 * It loads the project's Composer autoloader first (a PHPUnit installed by Composer has done so
 * already; Debian's /usr/bin/phpunit has not), looking for vendor/autoload.php in the working
 * directory and above. Options come from CARD_SANDBOX_* variables (<env> in phpunit.xml); a
 * bootstrap of your own calls CardSandbox\TestRun::start([...]) instead.
 */

(static function (): void {
    if (!class_exists(CardSandbox\TestRun::class)) {
        for ($dir = (string) getcwd(); ; $dir = dirname($dir)) {
            if (is_file($dir . '/vendor/autoload.php')) {
                require_once $dir . '/vendor/autoload.php';
                break;
            }
            if (dirname($dir) === $dir) {
                break;
            }
        }
    }
    if (!class_exists(CardSandbox\TestRun::class)) {
        // no autoloader knows the kit: this file's own folder does
        spl_autoload_register(static function (string $class): void {
            if (str_starts_with($class, 'CardSandbox\\')) {
                $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen('CardSandbox\\'))) . '.php';
                if (is_file($file)) {
                    require $file;
                }
            }
        });
    }
    try {
        CardSandbox\TestRun::start();
    } catch (CardSandbox\SandboxStartException $error) {
        fwrite(STDERR, $error->getMessage() . "\n");
        exit(1);
    }
})();
