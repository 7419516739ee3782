<?php

declare(strict_types=1);

namespace CardSandbox\Tests;

use CardSandbox\SandboxClient;
use CardSandbox\Tests\Support\Repository;
use PHPUnit\Framework\TestCase;

/** docs/php.md shows what runs: the first test is the example's file, every method is in its table. */
final class DocsTest extends TestCase
{
    public function testTheFirstTestShownIsTheOneTheExampleRuns(): void
    {
        $page = (string) file_get_contents(Repository::root() . '/docs/php.md');
        self::assertSame(1, preg_match('/```php\n(<\?php\n\ndeclare\(strict_types=1\);\n\nuse CardSandbox[^`]*?final class CardsTest[^`]*?)```/', $page, $block));
        self::assertSame((string) file_get_contents(Repository::root() . '/examples/php-wallet-backend/tests/CardsTest.php'), $block[1]);
    }

    public function testTheClientTableNamesEveryMethod(): void
    {
        $page = (string) file_get_contents(Repository::root() . '/docs/php.md');
        $table = substr($page, (int) strpos($page, '## The client'), 4000);
        foreach ((new \ReflectionClass(SandboxClient::class))->getMethods(\ReflectionMethod::IS_PUBLIC) as $method) {
            if (!str_starts_with($method->getName(), '__')) {
                self::assertStringContainsString('`' . $method->getName() . '(', $table);
            }
        }
    }
}
