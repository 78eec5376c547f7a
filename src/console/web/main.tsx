import { render } from 'preact';
import { App } from './App';
import './app.css';

render(<App />, document.getElementById('app')!);
