<?php

declare(strict_types=1);

namespace CardSandbox\Tests;

use CardSandbox\Tests\Support\Repository;
use PHPUnit\Framework\TestCase;

/** The Composer package: the npm package's version, and nothing to install beside PHP's own. */
final class PackageTest extends TestCase
{
    public function testHasTheVersionOfTheSandboxItComesWith(): void
    {
        $npm = json_decode((string) file_get_contents(Repository::root() . '/package.json'), true);
        self::assertSame($npm['version'], self::composer()['version']);
    }

    public function testNeedsNothingButPhpItsCurlAndItsJson(): void
    {
        self::assertSame(['php' => '>=8.1', 'ext-curl' => '*', 'ext-json' => '*'], self::composer()['require']);
        self::assertArrayNotHasKey('require-dev', self::composer(), 'PHPUnit is the system\'s: nothing to download');
        self::assertSame(['CardSandbox\\' => 'src/'], self::composer()['autoload']['psr-4']);
    }

    /** @return array<string, mixed> */
    private static function composer(): array
    {
        return json_decode((string) file_get_contents(__DIR__ . '/../composer.json'), true);
    }
}
