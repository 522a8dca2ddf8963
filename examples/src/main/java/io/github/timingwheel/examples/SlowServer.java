package io.github.timingwheel.examples;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.string.StringDecoder;
import io.netty.handler.codec.string.StringEncoder;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The server of {@link NetworkTimeouts}, on 127.0.0.1 and a free port: each request is a line
 * holding a number, and the reply is the same line. Most replies come within a few
 * milliseconds; requests whose number {@linkplain #isSlow is slow} are answered only after
 * {@code slowMillis}. Which ones are slow depends only on the number, so that a run knows how
 * many to expect; a negative number is a ping, never slow.
 */
final class SlowServer {

    /** Most a fast reply waits, in milliseconds. */
    static final int FAST_MAX_MILLIS = 5;

    private SlowServer() {
    }

    /** Whether request {@code id} is one of the {@code slowPercent} percent answered slowly. */
    static boolean isSlow(long id, int slowPercent) {
        return id >= 0 && Math.floorMod(id * 0x9E3779B97F4A7C15L >>> 32, 100L) < slowPercent;
    }

    /** Binds the server; close the returned channel to stop it. */
    static Channel start(EventLoopGroup group, int slowPercent, long slowMillis) throws InterruptedException {
        return new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline().addLast(
                                new LineBasedFrameDecoder(64),
                                new StringDecoder(StandardCharsets.US_ASCII),
                                new StringEncoder(StandardCharsets.US_ASCII),
                                new Answer(slowPercent, slowMillis));
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .sync()
                .channel();
    }

    /** Answers each line, later or sooner. */
    private static final class Answer extends SimpleChannelInboundHandler<String> {
        private final int slowPercent;
        private final long slowMillis;

        Answer(int slowPercent, long slowMillis) {
            this.slowPercent = slowPercent;
            this.slowMillis = slowMillis;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, String line) {
            long id = Long.parseLong(line.trim());
            long millis = isSlow(id, slowPercent) ? slowMillis : Math.abs(id % (FAST_MAX_MILLIS + 1));
            // The event loop's own timer delays the reply; a closed channel drops it.
            ctx.executor().schedule(() -> ctx.writeAndFlush(line + "\n"), millis, TimeUnit.MILLISECONDS);
        }
    }
}
