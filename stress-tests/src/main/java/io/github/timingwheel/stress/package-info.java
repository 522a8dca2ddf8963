/**
 * jcstress tests: one race per test, every outcome described, every other outcome forbidden.
 *
 * <p>Each test class's javadoc explains its race and gives the command that runs it; the module
 * README gives the quick (CI) and full commands. These tests run only through the jcstress
 * harness ({@code stress-tests/target/jcstress.jar}), never in {@code mvn test}.
 *
 * <p>Threading rule: every test is the jcstress contract itself. Actors run concurrently on
 * their own threads against a fresh {@code @State} object, the arbiter runs after all actors
 * have finished, and the harness records the result object each run filled in.
 *
 * <p>{@link io.github.timingwheel.stress.QuietRun} is no test: it runs the harness for
 * {@code mvn verify}, its output in a file and its counts on the console.
 */
package io.github.timingwheel.stress;
