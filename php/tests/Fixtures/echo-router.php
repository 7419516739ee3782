<?php

declare(strict_types=1);

// for tests/Process/PhpServerTest.php: answers with a variable the server was started with
header('Content-Type: text/plain');
echo getenv('ECHO_WORD'), ' ', $_SERVER['REQUEST_URI'];
return true;
