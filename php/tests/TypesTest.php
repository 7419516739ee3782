<?php

declare(strict_types=1);

namespace CardSandbox\Tests;

use PHPUnit\Framework\TestCase;

/**
 * The package's code is typed throughout: every file starts with declare(strict_types=1), and
 * every parameter, return and property of its classes has a type (the constructor and the other
 * methods PHP allows no return type on excepted).
 */
final class TypesTest extends TestCase
{
    private const PACKAGE = __DIR__ . '/..';

    public function testEveryFileDeclaresStrictTypes(): void
    {
        $files = [...self::files(self::PACKAGE . '/src'), ...self::files(self::PACKAGE . '/resources'), ...self::files(__DIR__), self::PACKAGE . '/bootstrap.php'];
        self::assertGreaterThan(10, count($files));
        $without = array_values(array_filter(
            $files,
            static fn (string $file): bool => preg_match('/\A<\?php\s+declare\(strict_types=1\);/', (string) file_get_contents($file)) !== 1,
        ));
        self::assertSame([], $without, 'files that do not start with declare(strict_types=1)');
    }

    public function testEveryParameterReturnAndPropertyHasAType(): void
    {
        $classes = self::classes();
        self::assertContains(\CardSandbox\SandboxClient::class, $classes);
        $untyped = [];
        foreach ($classes as $class) {
            $untyped = [...$untyped, ...self::untyped(new \ReflectionClass($class))];
        }
        self::assertSame([], $untyped, 'untyped parameters, returns and properties');
    }

    /**
     * What lacks a type in one class or trait (its own members, not those of a parent).
     *
     * @param \ReflectionClass<object> $class
     *
     * @return list<string>
     */
    public static function untyped(\ReflectionClass $class): array
    {
        $untyped = [];
        foreach ($class->getMethods() as $method) {
            if ($method->getDeclaringClass()->getName() !== $class->getName()) {
                continue;
            }
            $name = $class->getName() . '::' . $method->getName() . '()';
            $noReturnType = in_array($method->getName(), ['__construct', '__destruct', '__clone'], true);
            if (!$noReturnType && !$method->hasReturnType()) {
                $untyped[] = "{$name} return";
            }
            foreach ($method->getParameters() as $parameter) {
                if (!$parameter->hasType()) {
                    $untyped[] = "{$name} \${$parameter->getName()}";
                }
            }
        }
        foreach ($class->getProperties() as $property) {
            if ($property->getDeclaringClass()->getName() === $class->getName() && !$property->hasType()) {
                $untyped[] = $class->getName() . '::$' . $property->getName();
            }
        }
        return $untyped;
    }

    public function testWouldFindAMissingType(): void
    {
        $class = new \ReflectionClass(new class () {
            public $property;

            public function method($parameter): void
            {
            }

            public function result()
            {
                return null;
            }
        });
        self::assertCount(3, self::untyped($class));
    }

    /** @return list<class-string> every class, interface and trait under src/ */
    private static function classes(): array
    {
        $classes = [];
        foreach (self::files(self::PACKAGE . '/src') as $file) {
            $relative = substr($file, strlen(self::PACKAGE . '/src/'), -strlen('.php'));
            $name = 'CardSandbox\\' . str_replace('/', '\\', $relative);
            self::assertTrue(class_exists($name) || trait_exists($name) || interface_exists($name), "{$file} declares {$name}");
            $classes[] = $name;
        }
        return $classes;
    }

    /** @return list<string> the .php files under `$dir` */
    private static function files(string $dir): array
    {
        $files = [];
        $iterator = new \RecursiveIteratorIterator(new \RecursiveDirectoryIterator($dir, \FilesystemIterator::SKIP_DOTS));
        foreach ($iterator as $file) {
            if ($file instanceof \SplFileInfo && $file->getExtension() === 'php') {
                $files[] = $file->getPathname();
            }
        }
        sort($files);
        return $files;
    }
}
