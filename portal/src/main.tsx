import { render } from 'preact';
import { App } from './app/App';
import './shared/styles.css';

render(<App />, document.getElementById('app')!);
