import { Module } from '@nestjs/common';
import { PostingRule } from '../../common/access/posting';
import { EventsModule } from '../events/events.module';
import { CommentsService } from './comments.service';
import { LikesService } from './likes.service';
import { CommentsLikesController } from './comments-likes.controller';
import { ParentLookupService } from './parent-lookup.service';
import { TasksController } from './tasks.controller';
import { TasksService } from './tasks.service';
import { TweetsController } from './tweets.controller';
import { TweetsService } from './tweets.service';

/** Tweets, tasks, and the comments and likes hanging off them (feature `content`). */
@Module({
  imports: [EventsModule],
  // CommentsLikesController last: its `sdk/:parent/:id/...` routes must never shadow the static ones.
  controllers: [TweetsController, TasksController, CommentsLikesController],
  providers: [PostingRule, TweetsService, TasksService, CommentsService, LikesService, ParentLookupService],
})
export class ContentModule {}
