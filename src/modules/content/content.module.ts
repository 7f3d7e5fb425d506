import { Module } from '@nestjs/common';
import { MEMBER_POSTS_SETTING, PostingRule } from '../../common/access/posting';
import { CommunitiesStore, CommunitiesStoreModule } from '../community/communities.store';
import { EventsModule } from '../events/events.module';
import { CommentsService } from './comments.service';
import { CommentsStore } from './comments.store';
import { LikesService } from './likes.service';
import { LikesStore } from './likes.store';
import { CommentsLikesController } from './comments-likes.controller';
import { ParentLookupService } from './parent-lookup.service';
import { TasksController } from './tasks.controller';
import { TasksService } from './tasks.service';
import { TasksStore } from './tasks.store';
import { TweetsController } from './tweets.controller';
import { TweetsService } from './tweets.service';
import { TweetsStore } from './tweets.store';

/** Tweets, tasks, and the comments and likes hanging off them (feature `content`). */
@Module({
  imports: [CommunitiesStoreModule, EventsModule],
  // CommentsLikesController last: its `sdk/:parent/:id/...` routes must never shadow the static ones.
  controllers: [TweetsController, TasksController, CommentsLikesController],
  providers: [
    PostingRule,
    { provide: MEMBER_POSTS_SETTING, useExisting: CommunitiesStore },
    TweetsService,
    TasksService,
    CommentsService,
    LikesService,
    ParentLookupService,
    TweetsStore,
    TasksStore,
    CommentsStore,
    LikesStore,
  ],
  // the stores the demo seed writes its starting content through
  exports: [TweetsStore, TasksStore, CommentsStore, LikesStore],
})
export class ContentModule {}
