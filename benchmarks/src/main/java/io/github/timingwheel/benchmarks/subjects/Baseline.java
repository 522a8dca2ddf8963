package io.github.timingwheel.benchmarks.subjects;

import io.netty.util.Timer;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.function.LongSupplier;

/**
 * Our library as built from another commit, in the same JVM as the current one, for A/B runs:
 * {@code -Dbaseline.classpath=old/wheel-core.jar:old/wheel-executor.jar} (what
 * {@code benchmarks/ab.sh} builds and passes).
 *
 * <p>The classes of our library ({@code io.github.timingwheel.core} and
 * {@code io.github.timingwheel.executor}) are loaded child-first from those jars in a class
 * loader of their own, so the old and the current versions live side by side; everything else
 * (the JDK, Netty's {@code Timer} interface, JCTools) comes from the benchmarks jar, so the old
 * executor is a plain {@code ScheduledExecutorService} and the old timer a Netty {@code Timer}
 * to the scenarios. The old commit must build against the same JCTools and Netty versions (the
 * script checks nothing of the sort: compare the poms when the A/B spans a dependency change).
 * Each subject is built as {@code wheel-executor} and {@code wheel-timer} are: the executor with
 * two workers, both with the given thread factory, every other setting at the old commit's
 * default.
 */
final class Baseline {

    private static final String PROPERTY = "baseline.classpath";
    private static final String[] CHILD_FIRST = {"io.github.timingwheel.core.", "io.github.timingwheel.executor."};

    private static volatile ClassLoader loader;

    private Baseline() {
    }

    static ScheduledExecutorService executor(ThreadFactory threads) {
        return (ScheduledExecutorService) build("io.github.timingwheel.executor.WheelScheduledExecutor", threads);
    }

    static Timer timer(ThreadFactory threads) {
        return (Timer) build("io.github.timingwheel.executor.WheelTimer", threads);
    }

    /** The old timer's {@code pendingTimeouts()}, or -1 if it has none. */
    static LongSupplier pendingTimeouts(Timer timer) {
        try {
            Method method = timer.getClass().getMethod("pendingTimeouts");
            return () -> {
                try {
                    return (Long) method.invoke(timer);
                } catch (ReflectiveOperationException e) {
                    return -1L;
                }
            };
        } catch (NoSuchMethodException e) {
            return () -> -1L;
        }
    }

    /**
     * {@code type.builder().workers(2).threadFactory(threads).build()} for the executor, without
     * {@code workers} for the timer, by reflection.
     */
    private static Object build(String type, ThreadFactory threads) {
        try {
            Class<?> scheduler = Class.forName(type, true, loader());
            if (scheduler.getClassLoader() != loader()) {
                throw new IllegalStateException(type + " came from " + scheduler.getClassLoader()
                        + ", not from -D" + PROPERTY + ": the A/B would compare the current version with itself");
            }
            Object builder = scheduler.getMethod("builder").invoke(null);
            Class<?> builderType = builder.getClass();
            if (!type.endsWith("Timer")) { // the timer keeps its default, as wheel-timer does
                builderType.getMethod("workers", int.class).invoke(builder, 2);
            }
            builderType.getMethod("threadFactory", ThreadFactory.class).invoke(builder, threads);
            return builderType.getMethod("build").invoke(builder);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("the baseline's " + type + " failed to build", e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the baseline has no usable " + type + ".builder(): " + e, e);
        }
    }

    private static ClassLoader loader() {
        ClassLoader current = loader;
        if (current == null) {
            synchronized (Baseline.class) {
                current = loader;
                if (current == null) {
                    loader = current = create();
                }
            }
        }
        return current;
    }

    private static ClassLoader create() {
        String classpath = System.getProperty(PROPERTY);
        if (classpath == null || classpath.isBlank()) {
            throw new IllegalStateException("the baseline subjects need -D" + PROPERTY
                    + "=<the old commit's wheel-core and wheel-executor jars>; benchmarks/ab.sh sets it");
        }
        List<URL> urls = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator)) {
            File file = new File(entry);
            if (!file.exists()) {
                throw new IllegalStateException(PROPERTY + " names a missing file: " + file);
            }
            try {
                urls.add(file.toURI().toURL());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new ChildFirst(urls.toArray(URL[]::new), Baseline.class.getClassLoader());
    }

    /** Loads our library's packages from its own jars first; delegates everything else. */
    private static final class ChildFirst extends URLClassLoader {

        static {
            registerAsParallelCapable();
        }

        ChildFirst(URL[] urls, ClassLoader parent) {
            super("baseline", urls, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!isOurs(name)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> type = findLoadedClass(name);
                if (type == null) {
                    type = findClass(name); // never the parent's copy: that is the current version
                }
                if (resolve) {
                    resolveClass(type);
                }
                return type;
            }
        }

        private static boolean isOurs(String name) {
            for (String prefix : CHILD_FIRST) {
                if (name.startsWith(prefix)) {
                    return true;
                }
            }
            return false;
        }
    }
}
