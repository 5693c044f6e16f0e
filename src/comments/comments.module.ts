import { Module } from '@nestjs/common';
import { CommentsBulkController, CommentsBulkTargets } from './comments-bulk';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { CommentsController } from './comments.controller';
import { CommentsRepository } from './comments.repository';
import { CommentsService } from './comments.service';

@Module({
  imports: [WebhookOutboxModule],
  controllers: [CommentsController, CommentsBulkController],
  providers: [CommentsRepository, CommentsService, CommentsBulkTargets],
  exports: [CommentsService],
})
export class CommentsModule {}
