<?php

declare(strict_types=1);

namespace CardSandbox\Tests;

use CardSandbox\SandboxClient;
use CardSandbox\Tests\Support\Repository;
use PHPUnit\Framework\TestCase;

/** The PHP client has the Node client's method set, no more and no less. */
final class ClientParityTest extends TestCase
{
    public function testHasTheMethodsOfTheNodeClient(): void
    {
        $node = self::nodeMethods();
        $php = self::phpMethods();
        self::assertSame([], array_values(array_diff($node, $php)), 'methods of the Node client the PHP client lacks');
        self::assertSame([], array_values(array_diff($php, $node)), 'methods of the PHP client the Node client lacks');
    }

    /**
     * The function-valued keys of a client made by the built `card-sandbox/client`.
     *
     * @return list<string>
     */
    private static function nodeMethods(): array
    {
        $script = <<<'JS'
            const { createSandboxClient } = await import(process.argv[1])
            const client = createSandboxClient({ baseUrl: 'http://127.0.0.1:9', token: 't' })
            console.log(JSON.stringify(Object.keys(client).filter((key) => typeof client[key] === 'function')))
            JS;
        $methods = json_decode(Repository::node($script, [Repository::dist('client.js')]), true);
        self::assertIsArray($methods);
        self::assertContains('advanceClock', $methods, 'the Node client as read');
        return $methods;
    }

    /**
     * The PHP client's public methods, without the magic ones (the constructor, __debugInfo).
     *
     * @return list<string>
     */
    private static function phpMethods(): array
    {
        $methods = (new \ReflectionClass(SandboxClient::class))->getMethods(\ReflectionMethod::IS_PUBLIC);
        $names = array_map(static fn (\ReflectionMethod $method): string => $method->getName(), $methods);
        return array_values(array_filter($names, static fn (string $name): bool => !str_starts_with($name, '__')));
    }
}
