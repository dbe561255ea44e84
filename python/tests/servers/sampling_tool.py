"""A tool both test servers share: the client's media on the way in."""

import base64
import hashlib


def add_sampled_image_digest(server, context_class, types) -> None:
    """`sampled_image_digest`: asks the client for a sample (sampling/createMessage) and answers the sha256 of
    the image it returned (bin on the wire once native bytes are in force)."""

    async def sampled_image_digest(ctx) -> str:
        message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text="an image, please"))
        result = await ctx.session.create_message([message], max_tokens=10, related_request_id=ctx.request_id)
        return hashlib.sha256(base64.b64decode(result.content.data)).hexdigest()

    sampled_image_digest.__annotations__["ctx"] = context_class  # how the server knows to pass its context
    server.tool()(sampled_image_digest)
