import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { CommentsService } from './comments.service';
import { LikesService } from './likes.service';
import { ParentItemsController } from './parent-items.controller';
import { ParentItemsService } from './parent-items.service';
import { TasksController } from './tasks.controller';
import { TasksService } from './tasks.service';
import { TweetsController } from './tweets.controller';
import { TweetsService } from './tweets.service';

/** Tweets, tasks, and the comments and likes hanging off them (feature `content`). */
@Module({
  imports: [EventsModule],
  // ParentItemsController last: its `sdk/:parent/:id/...` routes must never shadow the static ones.
  controllers: [TweetsController, TasksController, ParentItemsController],
  providers: [TweetsService, TasksService, CommentsService, LikesService, ParentItemsService],
})
export class ContentModule {}
