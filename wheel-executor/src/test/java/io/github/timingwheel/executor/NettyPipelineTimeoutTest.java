package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.concurrent.Future;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Our {@link Timer} where Netty code uses one: per-request timeouts in a client pipeline, over
 * a real NIO connection on the loopback address. The server answers each request after a delay
 * the request names, on its event loop; the client arms {@code timer.newTimeout} as it writes a
 * request, cancels it when the answer comes, and fails the request when it fires. Fast answers
 * come at most 50 ms after the request and slow ones 2 s after, around a 1 s timeout, so the
 * outcome of each request is known in advance even on a loaded machine. HashedWheelTimer runs
 * the same test as the control.
 *
 * <p>Wire format: a request is {@code [int id][int answerDelayMillis]}, an answer {@code [int id]}.
 */
class NettyPipelineTimeoutTest {

    private static final long REQUEST_TIMEOUT_MILLIS = 1_000L;
    private static final int SLOW_ANSWER_MILLIS = 2_000;
    private static final int FAST_ANSWER_MAX_MILLIS = 50;
    private static final int REQUESTS = 36;
    private static final int REQUEST_BYTES = 8;
    private static final int ANSWER_BYTES = 4;

    enum TimerKind {
        WHEEL_TIMER {
            @Override
            Timer newTimer() {
                return WheelTimer.builder().threadNamePrefix("pipeline-test-wheel-timer-").build();
            }
        },
        HASHED_WHEEL_TIMER {
            @Override
            Timer newTimer() {
                return new HashedWheelTimer();
            }
        };

        abstract Timer newTimer();
    }

    private final List<EventLoopGroup> groups = new ArrayList<>();
    private final List<Channel> channels = new ArrayList<>();
    private Timer timer;

    @AfterEach
    void shutDown() {
        for (Channel channel : channels) {
            channel.close().awaitUninterruptibly(TIMEOUT_SECONDS, SECONDS);
        }
        if (timer != null) {
            timer.stop();
        }
        List<Future<?>> terminations = new ArrayList<>();
        for (EventLoopGroup group : groups) {
            terminations.add(group.shutdownGracefully(0L, 1L, SECONDS));
        }
        for (Future<?> termination : terminations) {
            assertThat(termination.awaitUninterruptibly(TIMEOUT_SECONDS, SECONDS))
                    .as("event loop group terminated").isTrue();
        }
    }

    /** One request: what the client asks, and what became of it. */
    static final class Call {
        final int id;
        final int answerDelayMillis;
        final CompletableFuture<Integer> answer = new CompletableFuture<>();
        /** Written on the client's event loop before the request is sent. */
        volatile Timeout timeout;
        volatile long armedAt;
        /** Written by the timer task before it fails {@link #answer}. */
        volatile long timedOutAt;
        /** Written on the event loop before it completes {@link #answer}. */
        volatile boolean cancelReturned;

        Call(int id, int answerDelayMillis) {
            this.id = id;
            this.answerDelayMillis = answerDelayMillis;
        }

        boolean slow() {
            return answerDelayMillis >= SLOW_ANSWER_MILLIS;
        }
    }

    @ParameterizedTest
    @EnumSource(TimerKind.class)
    void requestTimeouts_failExactlyTheSlowRequests_andAreCancelledForTheAnswered(TimerKind kind)
            throws Exception {
        timer = kind.newTimer();
        Channel server = startServer();
        AtomicInteger lateAnswers = new AtomicInteger();
        Channel client = connect(server, new RequestTimeoutHandler(timer, lateAnswers));
        List<Call> calls = new ArrayList<>();
        for (int id = 0; id < REQUESTS; id++) {
            boolean slow = id % 3 == 2;
            calls.add(new Call(id, slow ? SLOW_ANSWER_MILLIS + (id % 4) * 50 : (id * 7) % FAST_ANSWER_MAX_MILLIS));
        }

        for (Call call : calls) {
            client.writeAndFlush(call).addListener(written -> {
                if (!written.isSuccess()) {
                    call.answer.completeExceptionally(written.cause());
                }
            });
        }
        List<Integer> answered = new ArrayList<>();
        List<Integer> timedOut = new ArrayList<>();
        for (Call call : calls) {
            try {
                assertThat(call.answer.get(TIMEOUT_SECONDS, SECONDS)).isEqualTo(call.id);
                answered.add(call.id);
            } catch (ExecutionException e) {
                assertThat(e.getCause()).as("request %d failed", call.id).isInstanceOf(TimeoutException.class);
                timedOut.add(call.id);
            }
        }
        long slowCount = calls.stream().filter(Call::slow).count();
        awaitCondition("every slow answer arrived, late", () -> lateAnswers.get() == slowCount);

        assertThat(answered).containsExactlyElementsOf(idsWhere(calls, false));
        assertThat(timedOut).containsExactlyElementsOf(idsWhere(calls, true));
        for (Call call : calls) {
            Timeout timeout = call.timeout;
            if (call.slow()) {
                assertThat(timeout.isExpired()).as("timeout of %d expired", call.id).isTrue();
                assertThat(timeout.isCancelled()).isFalse();
                assertThat(call.timedOutAt - call.armedAt).as("timeout of %d fired no earlier", call.id)
                        .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(REQUEST_TIMEOUT_MILLIS));
            } else {
                assertThat(call.cancelReturned).as("cancel() of %d returned true", call.id).isTrue();
                assertThat(timeout.isCancelled()).as("timeout of %d cancelled", call.id).isTrue();
                assertThat(timeout.isExpired()).isFalse();
            }
        }
        assertThat(timer.stop()).as("timeouts left pending").isEmpty();
    }

    private static List<Integer> idsWhere(List<Call> calls, boolean slow) {
        return calls.stream().filter(call -> call.slow() == slow).map(call -> call.id).toList();
    }

    // ---------------------------------------------------------------------------------------
    // The server: answers after the delay each request names.

    private Channel startServer() throws InterruptedException {
        EventLoopGroup group = group();
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline().addLast(new DelayedAnswerHandler());
                    }
                });
        Channel server = awaitSuccess(bootstrap.bind(InetAddress.getLoopbackAddress(), 0)).channel();
        channels.add(server);
        return server;
    }

    private Channel connect(Channel server, RequestTimeoutHandler handler) throws InterruptedException {
        Bootstrap bootstrap = new Bootstrap()
                .group(group())
                .channel(NioSocketChannel.class)
                .handler(handler);
        Channel client = awaitSuccess(bootstrap.connect(server.localAddress())).channel();
        channels.add(client);
        return client;
    }

    private EventLoopGroup group() {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        groups.add(group);
        return group;
    }

    private static ChannelFuture awaitSuccess(ChannelFuture future)
            throws InterruptedException {
        assertThat(future.await(TIMEOUT_SECONDS, SECONDS)).as("done within %d s", TIMEOUT_SECONDS).isTrue();
        assertThat(future.cause()).isNull();
        return future;
    }

    /** Cuts a byte stream into fixed-size frames; one per connection, on its event loop. */
    private abstract static class FrameHandler extends ChannelDuplexHandler {
        private final int frameBytes;
        private ByteBuf received;

        FrameHandler(int frameBytes) {
            this.frameBytes = frameBytes;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            received = ctx.alloc().buffer();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            received.release();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                received.writeBytes(in);
            } finally {
                in.release();
            }
            while (received.readableBytes() >= frameBytes) {
                frame(ctx, received);
            }
            received.discardSomeReadBytes();
        }

        /** Reads exactly one frame from {@code in}. */
        abstract void frame(ChannelHandlerContext ctx, ByteBuf in);
    }

    private static final class DelayedAnswerHandler extends FrameHandler {
        DelayedAnswerHandler() {
            super(REQUEST_BYTES);
        }

        @Override
        void frame(ChannelHandlerContext ctx, ByteBuf in) {
            int id = in.readInt();
            int answerDelayMillis = in.readInt();
            // The deliberate delay: the event loop's own scheduler, not the timer under test.
            ctx.executor().schedule(
                    () -> ctx.writeAndFlush(ctx.alloc().buffer(ANSWER_BYTES).writeInt(id)),
                    answerDelayMillis, MILLISECONDS);
        }
    }

    // ---------------------------------------------------------------------------------------
    // The client: a timeout per request, as a read-timeout handler would arm it.

    /**
     * Arms a timeout as each {@link Call} is written; the answer and the timeout race to take
     * the call out of {@code inFlight}, so exactly one of them completes it. The winning answer
     * cancels the timeout; an answer that finds nothing came after its timeout.
     */
    private static final class RequestTimeoutHandler extends FrameHandler {
        private final Timer timer;
        private final AtomicInteger lateAnswers;
        private final Map<Integer, Call> inFlight = new ConcurrentHashMap<>();

        RequestTimeoutHandler(Timer timer, AtomicInteger lateAnswers) {
            super(ANSWER_BYTES);
            this.timer = timer;
            this.lateAnswers = lateAnswers;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            Call call = (Call) msg;
            inFlight.put(call.id, call);
            call.armedAt = System.nanoTime();
            call.timeout = timer.newTimeout(timeout -> timedOut(call), REQUEST_TIMEOUT_MILLIS, MILLISECONDS);
            ctx.write(ctx.alloc().buffer(REQUEST_BYTES).writeInt(call.id).writeInt(call.answerDelayMillis),
                    promise);
        }

        /** On the timer's thread. */
        private void timedOut(Call call) {
            long now = System.nanoTime();
            if (inFlight.remove(call.id, call)) {
                call.timedOutAt = now;
                call.answer.completeExceptionally(new TimeoutException("request " + call.id + " timed out"));
            }
        }

        @Override
        void frame(ChannelHandlerContext ctx, ByteBuf in) {
            answered(in.readInt());
        }

        /** On the event loop. */
        private void answered(int id) {
            Call call = inFlight.remove(id);
            if (call == null) {
                lateAnswers.incrementAndGet();
                return;
            }
            call.cancelReturned = call.timeout.cancel();
            call.answer.complete(id);
        }
    }
}
